package io.nyala.common.security.pki;

import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** A CA and servers' credentials issued by it, for tests. */
final class TestPki {
  final CertificateAuthority ca;

  TestPki(String clusterId) {
    ca = CertificateAuthority.create(clusterId, Duration.ofDays(365), Clock.systemUTC());
  }

  /** Credentials of a new server reached at 127.0.0.1 and localhost, valid for a day. */
  ServerCredentials server() {
    KeyPair keys = EcKeys.generate();
    Csr csr = Csr.create(keys, UUID.randomUUID().toString(), List.of("127.0.0.1", "localhost"));
    return new ServerCredentials(keys.getPrivate(),
        List.of(ca.issue(csr, Duration.ofDays(1)), ca.certificate()));
  }

  /** A new certificate for the key and subject of {@code old}, as a renewal gets. */
  ServerCredentials renewed(ServerCredentials old) {
    Csr csr = Csr.create(EcKeys.keyPairOf(old.privateKey()),
        old.leaf().getSubjectX500Principal().getName().substring("CN=".length()),
        List.of("127.0.0.1", "localhost"));
    return new ServerCredentials(old.privateKey(),
        List.of(ca.issue(csr, Duration.ofDays(1)), ca.certificate()));
  }
}
