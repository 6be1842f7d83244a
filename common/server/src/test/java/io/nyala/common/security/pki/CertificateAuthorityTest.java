package io.nyala.common.security.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The internal CA issues a server certificate the JDK's PKIX validator accepts, with the
 * extensions and names docs/architecture.md ("TLS and the internal CA (library)") promises, and
 * refuses requests it must not sign.
 */
@Timeout(30)
class CertificateAuthorityTest {
  private static final String UUID = "3f2e1d0c-0000-4000-8000-00000000abcd";
  private final KeyPair serverKeys = EcKeys.generate();
  private final CertificateAuthority ca =
      CertificateAuthority.create("c1", Duration.ofDays(30), Clock.systemUTC());

  @Test
  void theCaCertificateIsASelfSignedCa() throws Exception {
    X509Certificate c = ca.certificate();
    assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=Nyala cluster CA c1");
    assertThat(c.getIssuerX500Principal()).isEqualTo(c.getSubjectX500Principal());
    assertThat(c.getBasicConstraints()).isGreaterThanOrEqualTo(0);
    boolean[] usage = c.getKeyUsage();
    assertThat(usage[5]).as("keyCertSign").isTrue();
    assertThat(usage[6]).as("cRLSign").isTrue();
    assertThat(usage[0]).as("digitalSignature").isFalse();
    assertThat(c.getSigAlgName()).isEqualTo("SHA256withECDSA");
    assertThat(Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant()))
        .isEqualTo(Duration.ofDays(30));
    c.verify(c.getPublicKey());
  }

  @Test
  void anIssuedCertificateValidatesUpToTheCa() throws Exception {
    Csr csr = Csr.create(serverKeys, UUID, List.of("127.0.0.1", "ts-1.example.com", "::1"));
    X509Certificate leaf = ca.issue(csr, Duration.ofDays(1));

    validate(leaf, ca.certificate());
    assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=" + UUID);
    assertThat(leaf.getPublicKey()).isEqualTo(serverKeys.getPublic());
    assertThat(leaf.getBasicConstraints()).as("not a CA").isEqualTo(-1);
    boolean[] usage = leaf.getKeyUsage();
    assertThat(usage[0]).as("digitalSignature").isTrue();
    assertThat(usage[2]).as("keyEncipherment").isTrue();
    assertThat(usage[5]).as("keyCertSign").isFalse();
    assertThat(leaf.getExtendedKeyUsage())
        .containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
    assertThat(sans(leaf)).containsExactlyInAnyOrder(
        List.of(7, "127.0.0.1"), List.of(2, "ts-1.example.com"), List.of(7, "0:0:0:0:0:0:0:1"));
    assertThat(leaf.getSerialNumber().signum()).isPositive();
    assertThat(leaf.getSerialNumber().bitLength()).isLessThanOrEqualTo(128);
  }

  @Test
  void serialsDiffer() {
    Csr csr = Csr.create(serverKeys, UUID, List.of("localhost"));
    assertThat(ca.issue(csr, Duration.ofDays(1)).getSerialNumber())
        .isNotEqualTo(ca.issue(csr, Duration.ofDays(1)).getSerialNumber());
  }

  @Test
  void aCertificateFromAnotherCaDoesNotValidate() {
    CertificateAuthority other = CertificateAuthority.create("c1", Duration.ofDays(30),
        Clock.systemUTC());
    X509Certificate leaf = other.issue(Csr.create(serverKeys, UUID, List.of("localhost")),
        Duration.ofDays(1));
    assertThatThrownBy(() -> validate(leaf, ca.certificate()))
        .isInstanceOf(CertPathValidatorException.class);
  }

  @Test
  void aTamperedCsrIsRefused() {
    byte[] der = Csr.create(serverKeys, UUID, List.of("localhost")).toDer();
    byte[] uuid = UUID.getBytes(StandardCharsets.US_ASCII);
    int at = indexOf(der, uuid);
    der[at + uuid.length - 1] = 'e';
    Csr tampered = Csr.fromDer(der, "test CSR");
    assertThat(tampered.subject()).isEqualTo("CN=" + UUID.substring(0, UUID.length() - 1) + "e");

    assertThatThrownBy(() -> ca.issue(tampered, Duration.ofDays(1)))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("CN=3f2e1d0c-0000-4000-8000-00000000abce")
        .hasMessageContaining("signature does not verify");
  }

  @Test
  void aCsrWithAnEmptySubjectIsRefused() throws Exception {
    Csr empty = Csr.fromDer(new JcaPKCS10CertificationRequestBuilder(new X500Name(""),
        serverKeys.getPublic()).build(EcKeys.signer(serverKeys.getPrivate())).getEncoded(),
        "test CSR");
    assertThatThrownBy(() -> ca.issue(empty, Duration.ofDays(1)))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("CSR has an empty subject");
  }

  @Test
  void garbageIsNotACsr() {
    assertThatThrownBy(() -> Csr.fromDer(new byte[] {1, 2, 3}, "registration of ts-7"))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("registration of ts-7: not a PKCS#10 certificate request");
  }

  @Test
  void badHostNamesAreRefused() {
    assertThatThrownBy(() -> Csr.create(serverKeys, UUID, List.of("bad host")))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("host 'bad host' is neither an IP address nor a DNS name");
    assertThatThrownBy(() -> Csr.create(serverKeys, " ", List.of("localhost")))
        .isInstanceOf(NyalaException.class).hasMessageContaining("server uuid of a CSR is empty");
  }

  @Test
  void aCertificateNeverOutlivesItsCa() {
    X509Certificate leaf = ca.issue(Csr.create(serverKeys, UUID, List.of("localhost")),
        Duration.ofDays(400));
    assertThat(leaf.getNotAfter()).isEqualTo(ca.certificate().getNotAfter());
  }

  @Test
  void anExpiredCaIssuesNothing() {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    CertificateAuthority old = CertificateAuthority.create("c1", Duration.ofDays(1),
        Clock.fixed(start, ZoneOffset.UTC));
    CertificateAuthority later = CertificateAuthority.restore(old.privateKey(),
        old.certificate(), Clock.fixed(start.plus(Duration.ofDays(1)), ZoneOffset.UTC));
    assertThatThrownBy(() -> later.issue(Csr.create(serverKeys, UUID, List.of("localhost")),
        Duration.ofDays(1))).isInstanceOf(NyalaException.class)
        .hasMessageContaining("expired at 2026-01-02T00:00:00Z");
  }

  @Test
  void aRestoredCaIssuesCertificatesTheOriginalValidates() throws Exception {
    CertificateAuthority restored = CertificateAuthority.restore(
        Pem.readPrivateKey(Pem.encode(ca.privateKey()), "ca.key"),
        Pem.readCertificate(Pem.encode(ca.certificate()), "ca.crt"), Clock.systemUTC());
    X509Certificate leaf = restored.issue(Csr.create(serverKeys, UUID, List.of("localhost")),
        Duration.ofDays(1));
    validate(leaf, ca.certificate());
  }

  @Test
  void restoreRefusesAForeignKeyOrALeaf() {
    KeyPair stranger = EcKeys.generate();
    assertThatThrownBy(() -> CertificateAuthority.restore(stranger.getPrivate(),
        ca.certificate(), Clock.systemUTC())).isInstanceOf(NyalaException.class)
        .hasMessageContaining("does not belong to CA certificate 'CN=Nyala cluster CA c1'");
    X509Certificate leaf = ca.issue(Csr.create(serverKeys, UUID, List.of("localhost")),
        Duration.ofDays(1));
    assertThatThrownBy(() -> CertificateAuthority.restore(serverKeys.getPrivate(), leaf,
        Clock.systemUTC())).isInstanceOf(NyalaException.class)
        .hasMessageContaining("'CN=" + UUID + "' is not a CA certificate");
  }

  @Test
  void validityMustBePositive() {
    Csr csr = Csr.create(serverKeys, UUID, List.of("localhost"));
    assertThatThrownBy(() -> ca.issue(csr, Duration.ZERO)).isInstanceOf(NyalaException.class)
        .hasMessageContaining("certificate validity must be at least one second, got PT0S");
  }

  /** The JDK's own PKIX validation of {@code leaf} against the one trust anchor {@code root}. */
  static void validate(X509Certificate leaf, X509Certificate root) throws Exception {
    CertPath path = CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf));
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(root, null)));
    params.setRevocationEnabled(false);
    CertPathValidator.getInstance("PKIX").validate(path, params);
  }

  private static List<List<?>> sans(X509Certificate c) throws Exception {
    Collection<List<?>> names = c.getSubjectAlternativeNames();
    return names == null ? List.of() : new ArrayList<>(names);
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
