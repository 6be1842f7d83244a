package io.nyala.common.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nyala.common.HostPort;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.fault.FaultInjectionServiceGrpc;
import io.nyala.common.proto.fault.FaultInjectionServiceGrpc.FaultInjectionServiceBlockingStub;
import io.nyala.common.proto.fault.SetPartitionRequestPB;
import io.nyala.common.proto.fault.SetPartitionResponsePB;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.RpcServer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The RPC partition filter over real gRPC on loopback: a server whose only service is the real
 * {@link FaultInjectionService}, called by a "peer" (a channel tagged with its uuid) and by an
 * untagged client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpcPartitionFilterTest {
  private final NetworkFaults faults = new NetworkFaults("ts-1");
  private final Channels peer = new Channels().intercept(RpcPartitionFilter.callerIdentity("b"));
  private final Channels client = new Channels();
  private RpcServer server;

  @BeforeEach
  void start() {
    server = new RpcServer("ts-1", new HostPort("127.0.0.1", 0), 2, new MetricRegistry("ts-1"))
        .intercept(RpcPartitionFilter.inbound(faults))
        .addService(new FaultInjectionService(faults));
    server.start();
  }

  @AfterEach
  void stop() {
    peer.close();
    client.close();
    server.close();
  }

  @Test
  void dropsOnlyCallsOfCutOffServersUntilHealed() {
    SetPartitionResponsePB first = stub(peer).setPartition(block("b", "c"));
    assertThat(first.hasError()).isFalse();
    assertThat(faults.blocked()).containsExactlyInAnyOrder("b", "c");

    assertThatThrownBy(() -> stub(peer).setPartition(block()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription())
              .isEqualTo("network partition injected: ts-1 does not hear from b");
        });
    assertThat(faults.blocked()).as("the dropped call never ran").contains("b");
    assertThat(faults.droppedCalls()).isEqualTo(1);

    // A client is not a server: never cut off. It heals the partition.
    SetPartitionResponsePB healed = stub(client).setPartition(block());
    assertThat(healed.getDroppedCalls()).isEqualTo(1);
    assertThat(faults.blocked()).isEmpty();
    assertThat(stub(peer).setPartition(block()).hasError()).isFalse();
  }

  @Test
  void blankUuidIsRefusedNamingIt() {
    SetPartitionResponsePB r = stub(client).setPartition(block("b", " "));
    assertThat(r.getError().getMessage()).contains("ts-1", "blank uuid ' '");
    assertThat(faults.blocked()).isEmpty();
  }

  private FaultInjectionServiceBlockingStub stub(Channels channels) {
    return FaultInjectionServiceGrpc.newBlockingStub(channels.get(server.boundAddress()))
        .withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static SetPartitionRequestPB block(String... uuids) {
    return SetPartitionRequestPB.newBuilder().addAllBlockedPeerUuids(List.of(uuids)).build();
  }
}
