package io.nyala.common.security.cert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.cert.StoredCredentials.Verdict;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a server's stored certificate is good for at a start (docs/architecture.md, "TLS and the
 * internal CA"), at exact boundaries of an injected time: reused while from the trusted CA, for
 * the stored key, naming the same hosts and short of two thirds of its validity; due past that
 * until its end; to be replaced after its end, from another CA, for other hosts or another key.
 * A replacement is checked before it is stored.
 */
@Timeout(30)
class StoredCredentialsTest {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration VALIDITY = Duration.ofDays(30);
  private static final String UUID = "0123456789abcdef0123456789abcdef";
  private static final List<String> HOSTS = List.of("127.0.0.1", "localhost");

  @TempDir
  Path wal;
  private CertificateAuthority ca;
  private CredentialFiles files;

  @BeforeEach
  void setUp() {
    ca = CertificateAuthority.create("c", Duration.ofDays(365), Clock.fixed(T0, ZoneOffset.UTC));
    files = new CredentialFiles(Env.encrypted(KeyMaterial.random(256), 256), wal);
  }

  @Test
  void noneStoredIsReplacedAndTheKeyIsMadeOnce() {
    StoredCredentials first = load(T0);
    assertThat(first.verdict()).isEqualTo(Verdict.UNUSABLE);
    assertThat(first.reason()).isEqualTo("no certificate stored");
    assertThat(first.chain()).isNull();
    assertThat(load(T0).key().getPublic()).isEqualTo(first.key().getPublic());
  }

  @Test
  void aStoredCertificateIsGoodUntilTwoThirdsThenDueUntilItsEnd() {
    store(HOSTS);
    Instant renewAt = T0.plus(VALIDITY.multipliedBy(2).dividedBy(3));
    assertThat(load(T0).verdict()).isEqualTo(Verdict.GOOD);
    assertThat(load(T0).reason()).isEmpty();
    assertThat(load(renewAt.minusSeconds(1)).verdict()).isEqualTo(Verdict.GOOD);
    assertThat(load(renewAt).verdict()).isEqualTo(Verdict.DUE);
    assertThat(load(renewAt).reason()).contains("due for renewal at " + renewAt);
    assertThat(load(T0.plus(VALIDITY)).verdict()).isEqualTo(Verdict.DUE);
    StoredCredentials expired = load(T0.plus(VALIDITY).plusSeconds(1));
    assertThat(expired.verdict()).isEqualTo(Verdict.UNUSABLE);
    assertThat(expired.reason()).contains("not usable");
  }

  @Test
  void otherHostsAnotherCaOrAnotherKeyAreReplaced() {
    store(List.of("127.0.0.9"));
    assertThat(load(T0).verdict()).isEqualTo(Verdict.UNUSABLE);
    assertThat(load(T0).reason()).contains("[127.0.0.9]").contains(HOSTS.toString());

    StoredCredentials s = load(T0);
    CertificateAuthority other = CertificateAuthority.create("other", Duration.ofDays(365),
        Clock.fixed(T0, ZoneOffset.UTC));
    files.storeChain(List.of(other.issue(s.request(UUID, HOSTS), VALIDITY), other.certificate()));
    assertThat(load(T0).verdict()).isEqualTo(Verdict.UNUSABLE);

    X509Certificate strangers = ca.issue(Csr.create(
        EcKeys.generate(), UUID, HOSTS), VALIDITY);
    files.storeChain(List.of(strangers, ca.certificate()));
    assertThat(load(T0).verdict()).isEqualTo(Verdict.UNUSABLE);
    assertThat(load(T0).reason()).contains("another key");
  }

  @Test
  void aReplacementFromAnotherCaIsRefusedAndNotStored() {
    StoredCredentials s = load(T0);
    CertificateAuthority other = CertificateAuthority.create("other", Duration.ofDays(365),
        Clock.fixed(T0, ZoneOffset.UTC));
    List<X509Certificate> wrong = List.of(other.issue(s.request(UUID, HOSTS), VALIDITY),
        other.certificate());
    assertThatThrownBy(() -> s.replaceWith(files, wrong, ca.certificate(), "master m-1"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("the certificate from master m-1 is not one of the CA of "
            + "--trusted_ca_file");
    assertThat(files.loadChain()).isNull();

    List<X509Certificate> right = List.of(ca.issue(s.request(UUID, HOSTS), VALIDITY),
        ca.certificate());
    assertThat(s.replaceWith(files, right, ca.certificate(), "master m-1").chain())
        .isEqualTo(right);
    assertThat(files.loadChain()).isEqualTo(right);
  }

  private StoredCredentials load(Instant now) {
    return StoredCredentials.load(files, HOSTS, ca.certificate(), now);
  }

  private void store(List<String> names) {
    StoredCredentials s = load(T0);
    files.storeChain(List.of(ca.issue(s.request(UUID, names), VALIDITY), ca.certificate()));
  }
}
