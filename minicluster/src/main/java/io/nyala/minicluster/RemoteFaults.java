package io.nyala.minicluster;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.fault.FaultInjectionServiceGrpc;
import io.nyala.common.proto.fault.SetPartitionRequestPB;
import io.nyala.common.proto.fault.SetPartitionResponsePB;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Sets the partition of a server running in its own process, through the FaultInjectionService
 * it serves when started with {@code --fault_enable_network_partitions} (docs/testing.md,
 * "Network partitions"). The call comes from the harness, not a server, so no partition drops it.
 */
final class RemoteFaults {
  /** Flags that make a server process serve the FaultInjectionService. */
  static final String[] FLAGS = {"--unlock_unsafe_flags", "--fault_enable_network_partitions"};
  private static final long DEADLINE_MS = 10_000;

  private RemoteFaults() {}

  /**
   * Makes server {@code name} at {@code rpc} not hear from {@code blocked} (empty: heal).
   *
   * @throws NyalaException naming the server if it cannot be reached or refuses
   */
  static void setPartition(String name, HostPort rpc, ClusterTls tls, Set<String> blocked) {
    // Servers serve the fault injection service to servers only: present the harness's
    // certificate.
    ManagedChannel ch = tls.harnessChannel(rpc);
    try {
      SetPartitionResponsePB r = FaultInjectionServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
          .setPartition(SetPartitionRequestPB.newBuilder().addAllBlockedPeerUuids(blocked)
              .build());
      if (NyalaException.isError(r.getError())) {
        throw NyalaException.fromPb(r.getError());
      }
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        throw NyalaException.illegalState("%s at %s does not serve the fault injection service: "
            + "was it started without %s?", name, rpc, String.join(" ", FLAGS));
      }
      throw NyalaException.unavailable("%s at %s: cannot set its network partition to %s: %s",
          name, rpc, blocked, e.getStatus());
    } finally {
      ch.shutdownNow();
      try {
        ch.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
