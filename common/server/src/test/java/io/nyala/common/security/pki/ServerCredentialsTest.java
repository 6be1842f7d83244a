package io.nyala.common.security.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Renewal is due exactly when two thirds of the leaf's validity have passed. */
@Timeout(30)
class ServerCredentialsTest {
  private static final Instant ISSUED = Instant.parse("2026-03-01T12:00:00Z");

  private final CertificateAuthority ca = CertificateAuthority.create("renew",
      Duration.ofDays(365), Clock.fixed(ISSUED, ZoneOffset.UTC));
  private final KeyPair keys = EcKeys.generate();

  @Test
  void renewalIsDueAtTwoThirdsOfTheValidity() {
    ServerCredentials creds = issue(Duration.ofSeconds(3000));

    assertThat(creds.expiresAt()).isEqualTo(ISSUED.plusSeconds(3000));
    assertThat(creds.renewAt()).isEqualTo(ISSUED.plusSeconds(2000));
    assertThat(creds.needsRenewal(ISSUED)).isFalse();
    assertThat(creds.needsRenewal(ISSUED.plusSeconds(2000).minusMillis(1))).isFalse();
    assertThat(creds.needsRenewal(ISSUED.plusSeconds(2000))).isTrue();
    assertThat(creds.needsRenewal(ISSUED.plusSeconds(5000))).isTrue();
  }

  @Test
  void aKeyThatIsNotTheLeafsIsRefused() {
    ServerCredentials creds = issue(Duration.ofDays(1));
    assertThatThrownBy(() -> new ServerCredentials(EcKeys.generate().getPrivate(),
        creds.chain())).isInstanceOf(NyalaException.class)
        .hasMessageContaining("private key does not belong to certificate 'CN=ts-renew'");
    assertThatThrownBy(() -> new ServerCredentials(keys.getPrivate(), List.of()))
        .isInstanceOf(NyalaException.class).hasMessageContaining("need a certificate chain");
  }

  @Test
  void toStringNamesTheCertificateNotTheKey() {
    ServerCredentials creds = issue(Duration.ofDays(1));
    assertThat(creds.toString()).isEqualTo(
        "ServerCredentials[CN=ts-renew, until 2026-03-02T12:00:00Z, chain of 2]");
  }

  private ServerCredentials issue(Duration validity) {
    Csr csr = Csr.create(keys, "ts-renew", List.of("localhost"));
    return new ServerCredentials(keys.getPrivate(),
        List.of(ca.issue(csr, validity), ca.certificate()));
  }
}
