package io.nyala.common.security.cert;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.Env;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tablet server's own key and issued chain on disk (docs/architecture.md, "TLS and the
 * internal CA"): made once and the same after a reopen, owner-only, sealed by an encrypting
 * {@link Env}; the key pair rebuilt from the stored private half signs a request the CA accepts.
 */
@Timeout(30)
class CredentialFilesTest {
  @TempDir
  Path wal;

  @Test
  void theKeyIsMadeOnceSealedOwnerOnlyAndReused() throws Exception {
    Env env = Env.encrypted(KeyMaterial.random(256), 256);
    CredentialFiles files = new CredentialFiles(env, wal);
    KeyPair first = files.loadOrCreateKey();
    KeyPair again = new CredentialFiles(env, wal).loadOrCreateKey();
    assertThat(again.getPrivate().getEncoded()).isEqualTo(first.getPrivate().getEncoded());
    assertThat(again.getPublic()).isEqualTo(first.getPublic());

    Path key = files.keyFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.dir())))
        .isEqualTo("rwx------");
    String raw = new String(Files.readAllBytes(key), StandardCharsets.ISO_8859_1);
    assertThat(raw).as("sealed: no PEM in the clear").doesNotContain("PRIVATE KEY");
    assertThat(Files.list(files.dir()).map(p -> p.getFileName().toString()))
        .as("no temp file left").containsExactly(CredentialFiles.KEY);

    CertificateAuthority ca = CertificateAuthority.create("c", Duration.ofDays(2),
        Clock.systemUTC());
    X509Certificate leaf = ca.issue(Csr.create(again, "0123456789abcdef0123456789abcdef",
        List.of("127.0.0.1")), Duration.ofDays(1));
    assertThat(leaf.getPublicKey()).isEqualTo(first.getPublic());
    assertThat(files.loadChain()).isNull();
    files.storeChain(List.of(leaf, ca.certificate()));
    assertThat(files.loadChain()).containsExactly(leaf, ca.certificate());
  }

  @Test
  void theRebuiltPublicHalfMatchesAGeneratedPair() {
    KeyPair k = EcKeys.generate();
    assertThat(EcKeys.keyPairOf(k.getPrivate()).getPublic()).isEqualTo(k.getPublic());
  }
}
