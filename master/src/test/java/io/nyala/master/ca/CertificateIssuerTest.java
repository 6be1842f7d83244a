package io.nyala.master.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.MembershipProof;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * IssueCertificate's checks (docs/architecture.md, "TLS and the internal CA"): a request proving
 * membership with the cluster key gets a chain of the CA; one without the proof, with another
 * cluster's, or for another key, is refused NOT_AUTHORIZED naming the server and the reason; the
 * master never issues from a CA its servers do not trust. Real keys and a real key file.
 */
@Timeout(30)
class CertificateIssuerTest {
  private static final String UUID = "0123456789abcdef0123456789abcdef";

  @TempDir
  Path dir;

  private KeyProvider keys;
  private CertificateAuthority ca;
  private CertificateIssuer issuer;

  @BeforeEach
  void setUp() {
    keys = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    ca = CertificateAuthority.create("c1", Duration.ofDays(10), Clock.systemUTC());
    issuer = new CertificateIssuer(() -> ca, keys, ca.certificate(), Duration.ofDays(1),
        new MetricRegistry("m"));
  }

  private static Csr csr(String cn) {
    return Csr.create(EcKeys.generate(), cn, List.of("127.0.0.1", "ts-1.example"));
  }

  private IssueCertificateRequestPB request(Csr csr, KeyProvider proofKeys) {
    IssueCertificateRequestPB.Builder b = IssueCertificateRequestPB.newBuilder()
        .setCsrDer(ByteString.copyFrom(csr.toDer()));
    if (proofKeys != null) {
      b.setMembershipProof(ByteString.copyFrom(MembershipProof.of(proofKeys, 1, csr.toDer())))
          .setProofKeyVersion(1);
    }
    return b.build();
  }

  @Test
  void aMemberGetsItsChain() throws Exception {
    IssueCertificateResponsePB resp = issuer.issue(request(csr(UUID), keys), "client x");
    assertThat(resp.getChainDerCount()).isEqualTo(2);
    CertificateFactory f = CertificateFactory.getInstance("X.509");
    X509Certificate leaf = (X509Certificate) f.generateCertificate(
        new ByteArrayInputStream(resp.getChainDer(0).toByteArray()));
    leaf.verify(ca.certificate().getPublicKey());
    assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=" + UUID);
    assertThat(resp.getChainDer(1).toByteArray()).isEqualTo(ca.certificate().getEncoded());
  }

  @Test
  void noProofAWrongProofOrAnotherKeysProofIsRefusedNamingTheServer() {
    assertRefused(request(csr(UUID), null), "no proof of cluster membership");
    KeyProvider other = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    assertRefused(request(csr(UUID), other), "does not verify");
    IssueCertificateRequestPB theirs = request(csr(UUID), keys);
    IssueCertificateRequestPB swapped = theirs.toBuilder()
        .setCsrDer(ByteString.copyFrom(csr(UUID).toDer())).build();
    assertRefused(swapped, "does not verify");
    IssueCertificateRequestPB future = theirs.toBuilder().setProofKeyVersion(9).build();
    assertRefused(future, "cluster key version 9");
  }

  private void assertRefused(IssueCertificateRequestPB req, String reason) {
    assertThatThrownBy(() -> issuer.issue(req, "anonymous client 127.0.0.1:5000"))
        .isInstanceOf(NyalaException.class)
        .satisfies(e -> assertThat(((NyalaException) e).code())
            .isEqualTo(StatusCode.NOT_AUTHORIZED))
        .hasMessageContaining("certificate request of server '" + UUID + "'")
        .hasMessageContaining("127.0.0.1:5000").hasMessageContaining(reason);
  }

  @Test
  void aSubjectThatIsNoUuidOrGarbageIsInvalid() {
    assertThatThrownBy(() -> issuer.issue(request(csr("ts-1"), keys), "c"))
        .hasMessageContaining("server 'CN=ts-1'").hasMessageContaining("CN=<server uuid>");
    assertThatThrownBy(() -> issuer.issue(IssueCertificateRequestPB.newBuilder()
        .setCsrDer(ByteString.copyFromUtf8("not a request")).build(), "c"))
        .isInstanceOf(NyalaException.class)
        .satisfies(e -> assertThat(((NyalaException) e).code())
            .isEqualTo(StatusCode.INVALID_ARGUMENT));
  }

  @Test
  void aCaTheServersDoNotTrustIssuesNothing() {
    CertificateAuthority trusted = CertificateAuthority.create("ops", Duration.ofDays(10),
        Clock.systemUTC());
    CertificateIssuer mismatched = new CertificateIssuer(() -> ca, keys,
        trusted.certificate(), Duration.ofDays(1), new MetricRegistry("m"));
    assertThatThrownBy(() -> mismatched.issue(request(csr(UUID), keys), "c"))
        .hasMessageContaining("not the CA this cluster's servers trust")
        .hasMessageContaining("--tls_ca_key_file");
  }

  @Test
  void aMasterWithoutClusterKeyCannotCheckAProof() {
    CertificateIssuer plain = new CertificateIssuer(() -> ca, null, ca.certificate(),
        Duration.ofDays(1), new MetricRegistry("m"));
    assertThatThrownBy(() -> plain.issue(request(csr(UUID), keys), "c"))
        .hasMessageContaining("no cluster key");
  }
}
