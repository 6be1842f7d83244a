package io.nyala.common.security.cert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.MembershipProof;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.CertificateEncodingException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server's certificate request over real gRPC with TLS on loopback (docs/architecture.md, "TLS
 * and the internal CA"), to a fake leader master that checks the membership proof and issues
 * from a real CA: an unreachable master and a NOT_LEADER answer are retried; the certificate is
 * stored and reused at the next start without asking; a refusal ends at once with its reason; a
 * certificate due for renewal is kept when no leader answers in time, and none at all is a
 * TIMED_OUT naming the masters.
 */
@Timeout(60)
class CertificateRequesterTest {
  /** Now: the fake leader's own certificate must be valid for the TLS handshake. */
  private static final Instant T0 = Instant.now().truncatedTo(ChronoUnit.SECONDS);
  private static final String UUID = "0123456789abcdef0123456789abcdef";
  private static final List<String> HOSTS = List.of("127.0.0.1");

  @TempDir
  Path dir;
  private CertificateAuthority ca;
  private KeyProvider keys;
  private CredentialFiles files;
  private FakeLeader leader;
  private Server server;
  private HostPort unreachable;

  @BeforeEach
  void setUp() throws Exception {
    ca = CertificateAuthority.create("c", Duration.ofDays(365), Clock.fixed(T0, ZoneOffset.UTC));
    keys = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    files = new CredentialFiles(Env.encrypted(KeyMaterial.random(256), 256), dir.resolve("wal"));
    KeyPair own = EcKeys.generate();
    ServerCredentials serving = new ServerCredentials(own.getPrivate(), List.of(
        ca.issue(Csr.create(own, "master", HOSTS), Duration.ofDays(300)), ca.certificate()));
    leader = new FakeLeader();
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .sslContext(TlsContexts.forServer(serving, ca.certificate(),
            TlsContexts.ClientAuth.OPTIONAL))
        .addService(leader).build().start();
    try (ServerSocket s = new ServerSocket(0)) {
      unreachable = new HostPort("127.0.0.1", s.getLocalPort());
    }
  }

  @AfterEach
  void tearDown() {
    server.shutdownNow();
  }

  @Test
  void asksUntilTheLeaderAnswersStoresItAndReusesItAtTheNextStart() {
    leader.notLeaderFor.set(2);
    ServerCredentials first = requester(keys, T0.plusSeconds(60))
        .obtain(files, UUID, HOSTS, 30_000, () -> false);
    assertThat(first.leaf().getSubjectX500Principal().getName()).isEqualTo("CN=" + UUID);
    assertThat(first.chain()).endsWith(ca.certificate());
    assertThat(leader.calls.get()).isEqualTo(3);
    assertThat(files.loadChain()).isEqualTo(first.chain());

    ServerCredentials again = requester(keys, T0.plusSeconds(120))
        .obtain(files, UUID, HOSTS, 30_000, () -> false);
    assertThat(again.leaf()).isEqualTo(first.leaf());
    assertThat(leader.calls.get()).as("no new request").isEqualTo(3);
  }

  @Test
  void aRefusalEndsTheRequestAtOnceWithTheMastersReason() {
    KeyProvider stranger = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    assertThatThrownBy(() -> requester(stranger, T0).obtain(files, UUID, HOSTS, 30_000,
        () -> false)).isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED))
        .hasMessageContaining("master m-1: master " + masterAddress()
            + " refused its certificate request: proof does not verify");
    assertThat(files.loadChain()).isNull();
  }

  @Test
  void aCertificateDueForRenewalIsKeptWhenNoLeaderAnswers() {
    ServerCredentials first = requester(keys, T0).obtain(files, UUID, HOSTS, 30_000,
        () -> false);
    leader.notLeaderFor.set(Integer.MAX_VALUE);
    // Issued for a year: due after eight months, valid until twelve.
    Instant due = T0.plus(Duration.ofDays(300));
    ServerCredentials kept = requester(keys, due).obtain(files, UUID, HOSTS, 500, () -> false);
    assertThat(kept.leaf()).isEqualTo(first.leaf());

    // One that is not usable any more cannot be kept.
    Instant expired = T0.plus(Duration.ofDays(400));
    assertThatThrownBy(() -> requester(keys, expired).obtain(files, UUID, HOSTS, 500,
        () -> false)).isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.TIMED_OUT))
        .hasMessageContaining("master m-1: no certificate from the master's CA within 500 ms")
        .hasMessageContaining(masterAddress().toString())
        .hasMessageContaining(unreachable.toString());
  }

  @Test
  void withoutAClusterKeyOrAMasterToAskItRefusesToStart() {
    assertThatThrownBy(() -> requester(null, T0).obtain(files, UUID, HOSTS, 500, () -> false))
        .hasMessageContaining("needs --encrypt_data_at_rest");
    CertificateRequester alone = new CertificateRequester("master m-1", List.of(), keys,
        ca.certificate(), Clock.fixed(T0, ZoneOffset.UTC));
    assertThatThrownBy(() -> alone.obtain(files, UUID, HOSTS, 500, () -> false))
        .hasMessageContaining("there is no other master to ask");
  }

  private CertificateRequester requester(KeyProvider proofKeys, Instant now) {
    return new CertificateRequester("master m-1", List.of(unreachable, masterAddress()),
        proofKeys, ca.certificate(), Clock.fixed(now, ZoneOffset.UTC));
  }

  private HostPort masterAddress() {
    return new HostPort("127.0.0.1", server.getPort());
  }

  /** A leader master's IssueCertificate: NOT_LEADER while told to, else the real checks. */
  private final class FakeLeader extends MasterServiceGrpc.MasterServiceImplBase {
    final AtomicInteger notLeaderFor = new AtomicInteger();
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public void issueCertificate(IssueCertificateRequestPB req,
        StreamObserver<IssueCertificateResponsePB> out) {
      calls.incrementAndGet();
      out.onNext(answer(req));
      out.onCompleted();
    }

    private IssueCertificateResponsePB answer(IssueCertificateRequestPB req) {
      if (notLeaderFor.getAndDecrement() > 0) {
        return error(NyalaException.notLeader("not the leader", "", null));
      }
      byte[] der = req.getCsrDer().toByteArray();
      if (!MembershipProof.verify(keys, req.getProofKeyVersion(), der,
          req.getMembershipProof().toByteArray())) {
        return error(NyalaException.notAuthorized("proof does not verify"));
      }
      try {
        return IssueCertificateResponsePB.newBuilder()
            .addChainDer(ByteString.copyFrom(ca.issue(Csr.fromDer(der, "test"),
                Duration.ofDays(365)).getEncoded()))
            .addChainDer(ByteString.copyFrom(ca.certificate().getEncoded())).build();
      } catch (CertificateEncodingException e) {
        throw new IllegalStateException(e);
      }
    }

    private IssueCertificateResponsePB error(NyalaException e) {
      return IssueCertificateResponsePB.newBuilder().setError(e.toPb()).build();
    }
  }
}
