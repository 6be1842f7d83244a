package io.nyala.common.security.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.rpc.RpcServer;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.token.TokenSigner;
import io.nyala.common.security.token.TokenVerifier;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CallerAuthentication} and {@link RpcAuthorization} on a real {@link RpcServer} on
 * loopback with TLS from the internal CA (client certificates optional, as servers run it): who
 * each handler sees as its caller, and which calls each {@code --rpc_authentication} mode refuses
 * before the handler runs. The services are the generated bases with one method each, the seam
 * the real handlers implement.
 */
@Timeout(60)
class CallerChecksTest {
  private static final CertificateAuthority CA = ca();
  private static final CertificateAuthority OTHER_CA = ca();
  private static final String DELETE = "nyala.tserver.TabletServerAdminService/DeleteTablet";

  private final List<ManagedChannel> channels = new ArrayList<>();
  /** The caller each handler call saw. */
  private final List<Caller> seen = new CopyOnWriteArrayList<>();
  private final AtomicLong now = new AtomicLong(System.currentTimeMillis());
  private final TokenSigner signer = new TokenSigner(now::get, TimeUnit.MINUTES.toMillis(10),
      TimeUnit.DAYS.toMillis(1));
  private final TokenVerifier verifier = new TokenVerifier(now::get);
  private MetricRegistry metrics;
  private RpcServer server;

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void requiredRefusesAnAnonymousCallerAnAdminCallBeforeItsHandlerAndCountsIt() {
    start(RpcAuthentication.REQUIRED, true);
    SslContext anonymous = TlsContexts.forClient(CA.certificate());
    assertThatThrownBy(() -> deleteTablet(anonymous))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED))
        .hasMessageContaining(DELETE + " needs a server identity")
        .hasMessageContaining("caller is anonymous client 127.0.0.1:");
    assertThat(seen).isEmpty();
    assertThat(metrics.renderPrometheus()).contains(
        "rpc_unauthorized_total{server=\"authz-test\",method=\"DeleteTablet\"} 1");

    assertThatThrownBy(() -> listTables(anonymous, null))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED))
        .hasMessageContaining("ListTables needs an authenticated user: pass credentials");
    assertThat(seen).isEmpty();
  }

  @Test
  void requiredServesAUserWithAValidTokenAndTellsTheHandlerItsName() {
    start(RpcAuthentication.REQUIRED, true);
    listTables(TlsContexts.forClient(CA.certificate()), signer.sign("alice"));
    assertThat(seen).singleElement().satisfies(c -> {
      assertThat(c.kind()).isEqualTo(Caller.Kind.USER);
      assertThat(c.name()).isEqualTo("alice");
      assertThat(c.address()).startsWith("127.0.0.1:");
    });
  }

  /**
   * A server that has not learnt the newest signing key yet (a follower master behind the
   * catalog, a tablet server before its next heartbeat) refuses its tokens as UNAVAILABLE,
   * which clients retry or take elsewhere, not as forged; with the key it serves them.
   */
  @Test
  void requiredRefusesATokenOfAKeyNotKnownYetAsUnavailableThenServesIt() {
    start(RpcAuthentication.REQUIRED, true);
    SslContext anonymous = TlsContexts.forClient(CA.certificate());
    verifier.setKeys(List.of());
    SignedTokenPB token = signer.sign("alice");
    assertThatThrownBy(() -> listTables(anonymous, token))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE))
        .hasMessageContaining("not known here yet")
        .hasMessageNotContaining("forged");
    assertThat(seen).isEmpty();
    verifier.setKeys(signer.publicKeys());
    listTables(anonymous, token);
    assertThat(seen).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo("alice"));
  }

  @Test
  void requiredRefusesExpiredAndForgedTokensAsUnauthenticatedSayingWhy() {
    start(RpcAuthentication.REQUIRED, true);
    SslContext anonymous = TlsContexts.forClient(CA.certificate());
    SignedTokenPB token = signer.sign("alice");
    byte[] sig = token.getSignature().toByteArray();
    sig[sig.length - 1] ^= 0x01;
    SignedTokenPB forged = token.toBuilder().setSignature(ByteString.copyFrom(sig)).build();
    assertThatThrownBy(() -> listTables(anonymous, forged))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED))
        .hasMessageContaining("token of user 'alice' has a bad signature")
        .hasMessageContaining("forged or from another cluster");
    now.addAndGet(TimeUnit.HOURS.toMillis(1));
    assertThatThrownBy(() -> listTables(anonymous, token))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED))
        .hasMessageContaining("token of user 'alice' expired at");
    assertThat(seen).isEmpty();
  }

  @Test
  void requiredServesAServerItsAdminCallsAndTellsTheHandlerItsName() {
    start(RpcAuthentication.REQUIRED, true);
    deleteTablet(TlsContexts.forClient(CA.certificate(), credentials(CA, "ts-7")));
    assertThat(seen).singleElement().satisfies(c -> {
      assertThat(c.kind()).isEqualTo(Caller.Kind.SERVER);
      assertThat(c.name()).isEqualTo("ts-7");
    });
  }

  @Test
  void requiredRefusesAServerThatClaimsAnotherUuidThanItsCertificateNames() {
    start(RpcAuthentication.REQUIRED, true);
    String a = "0123456789abcdef0123456789abcdef";
    String b = "fedcba9876543210fedcba9876543210";
    SslContext issued = TlsContexts.forClient(CA.certificate(), credentials(CA, a));
    assertThatThrownBy(() -> deleteTablet(issued, b))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED))
        .hasMessageContaining("names server '" + a + "'")
        .hasMessageContaining("claims to come from server '" + b + "'");
    assertThat(seen).isEmpty();
    deleteTablet(issued, a);
    // An operator's certificate names a host, not a uuid: nothing to check it against.
    deleteTablet(TlsContexts.forClient(CA.certificate(), credentials(CA, "ts-7")), b);
    assertThat(seen).extracting(Caller::name).containsExactly(a, "ts-7");
  }

  @Test
  void aCertificateOfAnotherCaFailsTheHandshake() {
    start(RpcAuthentication.REQUIRED, true);
    SslContext stranger = TlsContexts.forClient(CA.certificate(), credentials(OTHER_CA, "ts-9"));
    assertThatThrownBy(() -> deleteTablet(stranger))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(seen).isEmpty();
  }

  @Test
  void optionalIdentifiesCallersAndRefusesNothing() {
    start(RpcAuthentication.OPTIONAL, true);
    deleteTablet(TlsContexts.forClient(CA.certificate()));
    deleteTablet(TlsContexts.forClient(CA.certificate(), credentials(CA, "ts-3")));
    assertThat(seen).extracting(Caller::name).containsExactly("", "ts-3");
  }

  @Test
  void overPlaintextEveryCallerIsAnonymousAndDisabledRefusesNothing() {
    start(RpcAuthentication.DISABLED, false);
    deleteTablet(null);
    assertThat(seen).singleElement().satisfies(c -> assertThat(c.isServer()).isFalse());
  }

  private void start(RpcAuthentication mode, boolean tls) {
    metrics = new MetricRegistry("authz-test");
    server = new RpcServer("authz-test", new HostPort("127.0.0.1", 0), 2, metrics);
    verifier.setKeys(signer.publicKeys());
    server.checkCallers(new CallerAuthentication(mode, verifier),
        new RpcAuthorization("authz-test", mode, metrics));
    server.addService(new TabletServerAdminServiceGrpc.TabletServerAdminServiceImplBase() {
      @Override
      public void deleteTablet(DeleteTabletRequestPB req,
          StreamObserver<DeleteTabletResponsePB> out) {
        seen.add(Caller.current());
        out.onNext(DeleteTabletResponsePB.getDefaultInstance());
        out.onCompleted();
      }
    });
    server.addService(new MasterServiceGrpc.MasterServiceImplBase() {
      @Override
      public void listTables(ListTablesRequestPB req, StreamObserver<ListTablesResponsePB> out) {
        seen.add(Caller.current());
        out.onNext(ListTablesResponsePB.getDefaultInstance());
        out.onCompleted();
      }
    });
    if (tls) {
      server.useTls(TlsContexts.forServer(credentials(CA, "ts-0"), CA.certificate(),
          TlsContexts.ClientAuth.OPTIONAL));
    }
    server.start();
  }

  private ManagedChannel channel(SslContext tls) {
    HostPort a = server.boundAddress();
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(a.host(), a.port());
    ManagedChannel c = (tls == null ? b.usePlaintext() : b.sslContext(tls)).build();
    channels.add(c);
    return c;
  }

  private void deleteTablet(SslContext tls) {
    deleteTablet(tls, null);
  }

  /** DeleteTablet claiming to come from server {@code claimedUuid} (null: no claim). */
  private void deleteTablet(SslContext tls, String claimedUuid) {
    Metadata headers = new Metadata();
    if (claimedUuid != null) {
      headers.put(CallerAuthentication.CLAIMED_UUID, claimedUuid);
    }
    TabletServerAdminServiceGrpc.newBlockingStub(channel(tls))
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .deleteTablet(DeleteTabletRequestPB.newBuilder().setTabletId("t1").build());
  }

  private void listTables(SslContext tls, SignedTokenPB token) {
    Metadata headers = new Metadata();
    if (token != null) {
      headers.put(CallerAuthentication.BEARER, CallerAuthentication.BEARER_PREFIX
          + Base64.getEncoder().encodeToString(token.toByteArray()));
    }
    MasterServiceGrpc.newBlockingStub(channel(tls)).withDeadlineAfter(20, TimeUnit.SECONDS)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .listTables(ListTablesRequestPB.getDefaultInstance());
  }

  private static CertificateAuthority ca() {
    return CertificateAuthority.create("authz", Duration.ofDays(30), Clock.systemUTC());
  }

  /** A server named {@code name}, reached at 127.0.0.1, with a certificate of {@code ca}. */
  private static ServerCredentials credentials(CertificateAuthority ca, String name) {
    KeyPair keys = EcKeys.generate();
    return new ServerCredentials(keys.getPrivate(), List.of(
        ca.issue(Csr.create(keys, name, List.of("127.0.0.1")), Duration.ofDays(1)),
        ca.certificate()));
  }
}
