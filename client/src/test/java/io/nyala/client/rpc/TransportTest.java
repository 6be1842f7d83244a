package io.nyala.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.fake.FakeCluster;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class TransportTest {
  @Test
  void cachesOneChannelPerAddressAndMapsUnreachableServers() {
    try (FakeCluster cluster = new FakeCluster(2, 0); Transport t = new Transport()) {
      var m0 = cluster.masters().get(0).address();
      var m1 = cluster.masters().get(1).address();
      assertThat(t.channel(m0)).isSameAs(t.channel(m0)).isNotSameAs(t.channel(m1));

      ListTablesResponsePB ok = t.<ListTablesResponsePB>call(m0, obs -> t.master(m0,
          Deadline.after(5000)).listTables(ListTablesRequestPB.getDefaultInstance(), obs)).join();
      assertThat(NyalaException.isError(ok.getError())).isFalse();

      cluster.masters().get(1).stop();
      assertThatThrownBy(() -> t.<ListTablesResponsePB>call(m1, obs -> t.master(m1,
              Deadline.after(5000)).listTables(ListTablesRequestPB.getDefaultInstance(), obs))
          .join())
          .isInstanceOf(CompletionException.class)
          .cause().isInstanceOfSatisfying(TransportException.class, e -> {
            assertThat(e.code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE);
            assertThat(e.isRetriable()).isTrue();
            assertThat(e.isUnreachable()).isTrue();
            assertThat(e.getMessage()).contains(m1.toString());
          });
    }
  }

  @Test
  void closingFailsPendingDelaysInsteadOfStrandingThem() {
    Transport t = new Transport();
    java.util.concurrent.CompletableFuture<Void> waiting = t.delay(60_000);
    t.close();
    // get with a bound, not join: @Timeout cannot interrupt join() if this regresses.
    assertThatThrownBy(() -> waiting.get(5, java.util.concurrent.TimeUnit.SECONDS))
        .isInstanceOf(java.util.concurrent.ExecutionException.class)
        .hasCauseInstanceOf(NyalaException.class).hasMessageContaining("client is closed");
  }

  @Test
  void closedTransportRefusesCalls() {
    Transport t = new Transport();
    t.close();
    var addr = new io.nyala.common.HostPort("127.0.0.1", 1);
    assertThatThrownBy(() -> t.channel(addr)).isInstanceOf(NyalaException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> t.delay(10).join()).hasCauseInstanceOf(NyalaException.class);
  }
}
