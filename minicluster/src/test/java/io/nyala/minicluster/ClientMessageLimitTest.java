package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.client.rpc.TransportException;
import io.nyala.common.HostPort;
import io.nyala.common.StatusCode;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.RpcServer;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's transport against the servers' real {@link RpcServer}: it lives here rather than
 * in the client's tests because the client must not depend on the server-side common module,
 * not even in test scope (docs/architecture.md, "Modules").
 */
@Timeout(20)
class ClientMessageLimitTest {
  @Test
  void aRequestOverTheServersMessageLimitIsInvalidArgumentNamingSizeAndLimit() {
    RpcServer server = new RpcServer("m-test", new HostPort("127.0.0.1", 0), 1, 10, 1024,
        new MetricRegistry("m-test"));
    server.addService(new MasterServiceGrpc.MasterServiceImplBase() {
    }).start();
    try (Transport t = new Transport()) {
      var addr = server.boundAddress();
      ListTablesRequestPB big = ListTablesRequestPB.newBuilder().setNameFilter("x".repeat(4000))
          .build();
      assertThatThrownBy(() -> t.<ListTablesResponsePB>call(addr, obs -> t.master(addr,
              Deadline.after(5000)).listTables(big, obs)).join())
          .isInstanceOf(CompletionException.class)
          .cause().isInstanceOfSatisfying(TransportException.class, e -> {
            assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
            assertThat(e.isRetriable()).isFalse();
            assertThat(e.isUnreachable()).isFalse();
            assertThat(e.getMessage()).contains("--rpc_max_message_size").contains("1024")
                .contains(String.valueOf(big.getSerializedSize()));
          });
    } finally {
      server.close();
    }
  }
}
