package io.nyala.common.security.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.protobuf.services.HealthStatusManager;
import io.nyala.common.security.pki.TlsContexts.ClientAuth;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real gRPC server on loopback with TLS from the internal CA serves grpc's health service to
 * exactly the clients its client-auth mode admits.
 */
@Timeout(60)
class TlsGrpcTest {
  private static final TestPki PKI = new TestPki("grpc");
  private static final TestPki OTHER = new TestPki("grpc");

  private final List<ManagedChannel> channels = new ArrayList<>();
  private Server server;

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void requireServesAClientWithACertificateOfTheCa() throws Exception {
    start(PKI.server(), ClientAuth.REQUIRE);
    assertThat(check(TlsContexts.forClient(PKI.ca.certificate(), PKI.server())))
        .isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void requireRefusesAPlaintextClient() throws Exception {
    start(PKI.server(), ClientAuth.REQUIRE);
    assertRefused(() -> check(null));
  }

  @Test
  void requireRefusesAClientWithACertificateOfAnotherCa() throws Exception {
    start(PKI.server(), ClientAuth.REQUIRE);
    assertRefused(() -> check(TlsContexts.forClient(PKI.ca.certificate(), OTHER.server())));
  }

  @Test
  void requireRefusesAClientWithoutACertificate() throws Exception {
    start(PKI.server(), ClientAuth.REQUIRE);
    assertRefused(() -> check(TlsContexts.forClient(PKI.ca.certificate())));
  }

  @Test
  void optionalServesAClientWithoutACertificate() throws Exception {
    start(PKI.server(), ClientAuth.OPTIONAL);
    assertThat(check(TlsContexts.forClient(PKI.ca.certificate())))
        .isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void aClientRefusesAServerOfAnotherCa() throws Exception {
    start(OTHER.server(), ClientAuth.NONE);
    assertRefused(() -> check(TlsContexts.forClient(PKI.ca.certificate())));
  }

  private void start(ServerCredentials creds, ClientAuth auth) throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .sslContext(TlsContexts.forServer(creds, creds.chain().get(1), auth))
        .addService(new HealthStatusManager().getHealthService())
        .build().start();
  }

  /** One health check over a new channel: TLS with {@code tls}, or plaintext if null. */
  private ServingStatus check(SslContext tls) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort());
    ManagedChannel channel = (tls == null ? b.usePlaintext() : b.sslContext(tls)).build();
    channels.add(channel);
    return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus();
  }

  private static void assertRefused(ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }
}
