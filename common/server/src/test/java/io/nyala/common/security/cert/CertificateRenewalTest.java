package io.nyala.common.security.cert;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.tls.WireTls;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tablet server's certificate renewed while it runs (docs/architecture.md, "TLS and the
 * internal CA"), against a master's {@code IssueCertificate} served by real gRPC over TLS on
 * loopback and a real CA issuing 30-second certificates; time is a clock the test moves, so
 * nothing waits for a certificate to age. Not yet due: nothing asked. Due: a new certificate
 * for the same key, stored and presented, counted. A master that refuses: each attempt fails,
 * backs off (doubling, capped at a tenth of the validity), and once the certificate has expired
 * says so; when the master issues again, the next attempt renews.
 */
@Timeout(60)
class CertificateRenewalTest {
  private static final Duration VALIDITY = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private final CertificateAuthority ca = CertificateAuthority.create("renewal",
      Duration.ofDays(1), Clock.systemUTC());
  /** The master's answer to the next request: null to issue, else the error it answers. */
  private final AtomicReference<NyalaException> refusal = new AtomicReference<>();
  private final TestClock clock = new TestClock(Instant.now());
  private final MetricRegistry metrics = new MetricRegistry("ts-1");
  private Server master;
  private CertificateRenewal renewal;
  private WireTls tls;
  private CredentialFiles files;

  @BeforeEach
  void start() throws Exception {
    master = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .sslContext(TlsContexts.forServer(credentials("master"), ca.certificate(),
            TlsContexts.ClientAuth.OPTIONAL))
        .addService(new FakeMaster()).build().start();
    Path caFile = dir.resolve("ca.crt");
    Files.writeString(caFile, Pem.encode(List.of(ca.certificate())), StandardCharsets.US_ASCII);
    WireTls awaiting = WireTls.fromFlags("required", "", "", caFile.toString());
    Env env = Env.encrypted(KeyMaterial.random(256), 256);
    Path wal = dir.resolve("wal");
    files = new CredentialFiles(env, wal);
    CertificateRequester requester = new CertificateRequester("ts-1",
        List.of(new HostPort("127.0.0.1", master.getPort())),
        FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256), ca.certificate(),
        Clock.systemUTC());
    renewal = new CertificateRenewal("ts-1", requester, files,
        UUID.randomUUID().toString().replace("-", ""), List.of("127.0.0.1"), () -> false, clock);
    tls = awaiting.withCredentials(renewal.obtain(10_000));
    renewal.bind(metrics, tls);
  }

  @AfterEach
  void stop() throws InterruptedException {
    master.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void renewsOnceDueForTheSameKeyStoresAndPresentsIt() {
    ServerCredentials first = tls.credentials();
    Duration wait = renewal.attempt();
    assertThat(wait).as("not due yet: wait until two thirds of the validity")
        .isEqualTo(Duration.between(clock.instant(), first.renewAt()));
    assertThat(tls.credentials()).isSameAs(first);

    clock.set(first.renewAt());
    renewal.attempt();
    ServerCredentials second = tls.credentials();
    assertThat(second.leaf().getSerialNumber()).isNotEqualTo(first.leaf().getSerialNumber());
    assertThat(second.leaf().getPublicKey()).as("the same key")
        .isEqualTo(first.leaf().getPublicKey());
    assertThat(files.loadChain().get(0)).as("stored").isEqualTo(second.leaf());
    assertThat(metrics.value("certificate_renewals_total")).isEqualTo(1);
    assertThat(renewal.lastFailure()).isNull();
  }

  @Test
  void failuresBackOffSayWhenTheCertificateExpiredAndKeepTrying() {
    ServerCredentials first = tls.credentials();
    refusal.set(NyalaException.notAuthorized("no proof of cluster membership"));
    clock.set(first.renewAt());
    List<Duration> waits = List.of(renewal.attempt(), renewal.attempt(), renewal.attempt(),
        renewal.attempt());
    assertThat(waits).as("from a second, doubling, capped at a tenth of 30 s").containsExactly(
        Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3),
        Duration.ofSeconds(3));
    assertThat(metrics.value("certificate_renewal_failures_total")).isEqualTo(4);
    assertThat(renewal.lastFailure()).contains("ts-1").contains("failed (4 in a row)")
        .contains("no proof of cluster membership").doesNotContain("EXPIRED");
    assertThat(tls.credentials()).isSameAs(first);

    clock.set(first.expiresAt().plusSeconds(1));
    renewal.attempt();
    assertThat(renewal.lastFailure()).contains("ts-1")
        .contains("EXPIRED at " + first.expiresAt()).contains("keeps asking");

    refusal.set(null);
    renewal.attempt();
    assertThat(tls.credentials().leaf().getSerialNumber())
        .isNotEqualTo(first.leaf().getSerialNumber());
    assertThat(metrics.value("certificate_renewals_total")).isEqualTo(1);
    assertThat(renewal.lastFailure()).isNull();
  }

  private ServerCredentials credentials(String name) {
    KeyPair keys = EcKeys.generate();
    X509Certificate leaf = ca.issue(Csr.create(keys, name, List.of("127.0.0.1")),
        Duration.ofDays(1));
    return new ServerCredentials(keys.getPrivate(), List.of(leaf, ca.certificate()));
  }

  /** The master's CA: issues every request for {@link #VALIDITY}, or answers the refusal. */
  private final class FakeMaster extends MasterServiceGrpc.MasterServiceImplBase {
    @Override
    public void issueCertificate(IssueCertificateRequestPB req,
        StreamObserver<IssueCertificateResponsePB> out) {
      IssueCertificateResponsePB.Builder b = IssueCertificateResponsePB.newBuilder();
      NyalaException refused = refusal.get();
      if (refused != null) {
        b.setError(refused.toPb());
      } else {
        X509Certificate leaf = ca.issue(Csr.fromDer(req.getCsrDer().toByteArray(), "test"),
            VALIDITY);
        for (X509Certificate c : List.of(leaf, ca.certificate())) {
          b.addChainDer(ByteString.copyFrom(encoded(c)));
        }
      }
      out.onNext(b.build());
      out.onCompleted();
    }

    private static byte[] encoded(X509Certificate c) {
      try {
        return c.getEncoded();
      } catch (CertificateEncodingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** A clock the test sets. */
  private static final class TestClock extends Clock {
    private volatile Instant now;

    TestClock(Instant now) {
      this.now = now;
    }

    void set(Instant t) {
      now = t;
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
