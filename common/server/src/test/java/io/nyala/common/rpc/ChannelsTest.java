package io.nyala.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.nyala.common.HostPort;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server's outgoing channels reach a peer as soon as it listens, however long they failed
 * to connect before: gRPC's reconnect backoff (1 s, 1.6 s, 2.6 s, 4.1 s, ...) would otherwise
 * fail every call at once until its next attempt, seconds after the peer came up.
 */
@Timeout(60)
class ChannelsTest {
  @Test
  void aPeerThatStartsListeningIsReachedOnTheNextCallWhateverTheBackoff() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // free now; nothing listens there until the server below
    }
    HostPort addr = new HostPort("127.0.0.1", port);
    try (Channels channels = new Channels()) {
      // Fail for 6 s, calling every 50 ms: the channel's backoff grows past 2.6 s.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
      int failures = 0;
      while (System.nanoTime() < until) {
        assertThatThrownBy(() -> check(channels, addr, 500))
            .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(
                e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        failures++;
        Thread.sleep(50);
      }
      assertThat(failures).isGreaterThan(10);
      Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
          .addService(new HealthStatusManager().getHealthService()).build().start();
      try {
        // The first call after the peer listens asks for a reconnect (and may fail fast before
        // it completes); within 1.2 s a call succeeds. Without the reset none does: the
        // backoff's next attempt is further away than that.
        assertThat(await("the peer reached").atMost(Duration.ofMillis(1_200))
            .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
            .until(() -> check(channels, addr, 500), st -> st == ServingStatus.SERVING))
            .isEqualTo(ServingStatus.SERVING);
      } finally {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static ServingStatus check(Channels channels, HostPort addr, long deadlineMs) {
    return HealthGrpc.newBlockingStub(channels.get(addr))
        .withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus();
  }
}
