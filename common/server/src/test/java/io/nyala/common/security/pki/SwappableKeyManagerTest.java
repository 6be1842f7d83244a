package io.nyala.common.security.pki;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.protobuf.services.HealthStatusManager;
import io.nyala.common.security.pki.TlsContexts.ClientAuth;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A certificate swapped into a {@link SwappableKeyManager} while its contexts serve
 * (docs/architecture.md, "TLS and the internal CA"): a real gRPC server on loopback (Netty, the
 * BoringSSL provider gRPC's shaded Netty ships) presents it to the connections made after the
 * swap, while a connection made before keeps working on the certificate it was handshaken with;
 * a server's channels present the new one on their next connection; so does an HTTPS listener
 * (the JDK's TLS). Nothing caches the key material between handshakes.
 */
@Timeout(60)
class SwappableKeyManagerTest {
  private static final TestPki PKI = new TestPki("swap");

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
  void theServerPresentsTheSwappedCertificateToNewConnectionsAndOldOnesKeepGoing()
      throws Exception {
    ServerCredentials a = PKI.server();
    SwappableKeyManager keys = new SwappableKeyManager(a);
    start(TlsContexts.forServer(keys, PKI.ca.certificate(), ClientAuth.OPTIONAL), null);
    // One client context throughout, as a peer's: it would resume its first session if the
    // server did not forget its sessions at the swap.
    SslContext client = TlsContexts.forClient(PKI.ca.certificate());

    Probe before = new Probe(client);
    assertThat(before.checkAndPeerSerial()).isEqualTo(serial(a));
    assertThat(new Probe(client).checkAndPeerSerial()).as("another connection, no swap")
        .isEqualTo(serial(a));

    ServerCredentials b = PKI.renewed(a);
    keys.swap(b);
    assertThat(new Probe(client).checkAndPeerSerial()).as("a new connection")
        .isEqualTo(serial(b));
    assertThat(before.checkAndPeerSerial()).as("the connection made before the swap")
        .isEqualTo(serial(a));

    // An operator's new files may bring a new key as well.
    ServerCredentials c = PKI.server();
    keys.swap(c);
    assertThat(new Probe(client).checkAndPeerSerial()).isEqualTo(serial(c));
    assertThat(keys.swaps()).isEqualTo(2);
  }

  @Test
  void aChannelContextPresentsTheSwappedCertificateOnItsNextConnection() throws Exception {
    List<BigInteger> seen = new CopyOnWriteArrayList<>();
    ServerCredentials server = PKI.server();
    start(TlsContexts.forServer(server, PKI.ca.certificate(), ClientAuth.REQUIRE), seen);
    ServerCredentials a = PKI.server();
    SwappableKeyManager keys = new SwappableKeyManager(a);
    SslContext client = TlsContexts.forClient(PKI.ca.certificate(), keys);

    Probe before = new Probe(client);
    before.checkAndPeerSerial();
    ServerCredentials b = PKI.renewed(a);
    keys.swap(b);
    new Probe(client).checkAndPeerSerial();
    before.checkAndPeerSerial();
    assertThat(seen).containsExactly(serial(a), serial(b), serial(a));
  }

  @Test
  void anHttpsContextPresentsTheSwappedCertificate() throws Exception {
    ServerCredentials a = PKI.server();
    SwappableKeyManager keys = new SwappableKeyManager(a);
    SSLContext https = TlsContexts.forHttps(keys);
    try (SSLServerSocket listener = (SSLServerSocket) https.getServerSocketFactory()
        .createServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      assertThat(httpsPeerSerial(listener)).isEqualTo(serial(a));
      ServerCredentials b = PKI.renewed(a);
      keys.swap(b);
      assertThat(httpsPeerSerial(listener)).isEqualTo(serial(b));
    }
  }

  @Test
  void aHandshakeThatChoseItsAliasBeforeASwapGetsAMatchingKeyAndChain() {
    ServerCredentials a = PKI.server();
    SwappableKeyManager keys = new SwappableKeyManager(a);
    String chosen = keys.chooseEngineServerAlias("EC", null, null);
    ServerCredentials c = PKI.server();
    keys.swap(c);
    assertThat(keys.getPrivateKey(chosen)).isEqualTo(a.privateKey());
    assertThat(keys.getCertificateChain(chosen)).containsExactlyElementsOf(a.chain());
    String next = keys.chooseEngineServerAlias("EC", null, null);
    assertThat(next).isNotEqualTo(chosen);
    assertThat(keys.getPrivateKey(next)).isEqualTo(c.privateKey());
    keys.swap(PKI.server());
    assertThat(keys.getPrivateKey(chosen)).as("two swaps ago").isNull();
    assertThat(keys.chooseEngineServerAlias("RSA", null, null)).as("an RSA key asked for")
        .isNull();
    assertThat(keys.chooseEngineClientAlias(new String[] {"RSA", "EC_EC"}, null, null))
        .isNotNull();
  }

  private static BigInteger serial(ServerCredentials c) {
    return c.leaf().getSerialNumber();
  }

  /** A gRPC health server; records the serial of each call's client certificate if asked. */
  private void start(SslContext tls, List<BigInteger> clientSerials) throws Exception {
    ServerInterceptor record = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata h,
          ServerCallHandler<Q, R> next) {
        if (clientSerials != null) {
          clientSerials.add(leafSerial(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION),
              "client"));
        }
        return next.startCall(call, h);
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .sslContext(tls)
        .addService(ServerInterceptors.intercept(new HealthStatusManager().getHealthService(),
            record))
        .build().start();
  }

  private static BigInteger leafSerial(SSLSession session, String whose) {
    try {
      return ((X509Certificate) session.getPeerCertificates()[0]).getSerialNumber();
    } catch (Exception e) {
      throw new AssertionError("no " + whose + " certificate in the TLS session", e);
    }
  }

  /** One channel (one connection) to the server; each check reads its TLS session. */
  private final class Probe {
    private final ManagedChannel channel;
    private final AtomicReference<SSLSession> session = new AtomicReference<>();

    Probe(SslContext tls) {
      channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).sslContext(tls)
          .intercept(new SessionCapture(session)).build();
      channels.add(channel);
    }

    /** A health check over this channel; the serial of the server's certificate it saw. */
    BigInteger checkAndPeerSerial() {
      assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance()).getStatus())
          .isEqualTo(ServingStatus.SERVING);
      return leafSerial(session.get(), "server");
    }
  }

  /** Keeps the TLS session of each call's transport once its headers arrive. */
  private record SessionCapture(AtomicReference<SSLSession> session)
      implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method,
        CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          ClientCall<Q, R> call = this;
          super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(
              listener) {
            @Override
            public void onHeaders(Metadata h) {
              session.set(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
              super.onHeaders(h);
            }
          }, headers);
        }
      };
    }
  }

  /** One HTTPS-style handshake with {@code listener}: the serial of the certificate it sent. */
  private static BigInteger httpsPeerSerial(SSLServerSocket listener) throws Exception {
    CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
      try (SSLSocket s = (SSLSocket) listener.accept()) {
        s.startHandshake();
        s.getOutputStream().write(1);
        s.getOutputStream().flush();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    SSLContext trusting = SSLContext.getInstance("TLS");
    trusting.init(null, new javax.net.ssl.TrustManager[] {
        TlsContexts.trustManager(PKI.ca.certificate())}, null);
    try (SSLSocket s = (SSLSocket) trusting.getSocketFactory().createSocket(
        InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
      s.startHandshake();
      assertThat(s.getInputStream().read()).isEqualTo(1);
      BigInteger serial = leafSerial(s.getSession(), "server");
      served.get(20, TimeUnit.SECONDS);
      return serial;
    }
  }
}
