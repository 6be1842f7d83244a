package io.nyala.common.security.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.security.pki.Pem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The operator's certificate files: a CA, then server certificates it signs, keys 0600. */
@Timeout(60)
class CertFilesTest {
  @TempDir
  Path dir;

  @Test
  void makesACaAndAServerCertificateItSigns() throws Exception {
    Path ca = CertFiles.createCa(dir.resolve("certs"));
    CertFiles.ServerFiles s = CertFiles.createServer(dir.resolve("certs"), "ts-1",
        List.of("127.0.0.1", "ts1.example.com"));

    X509Certificate caCert = Pem.readCertificate(Files.readString(ca), "ca");
    List<X509Certificate> chain = Pem.readCertificates(Files.readString(s.certFile()), "ts-1");
    assertThat(chain).hasSize(2);
    assertThat(chain.get(1)).isEqualTo(caCert);
    chain.get(0).verify(caCert.getPublicKey());
    assertThat(chain.get(0).getSubjectAlternativeNames()).extracting(n -> (Object) n.get(1))
        .containsExactlyInAnyOrder("127.0.0.1", "ts1.example.com");
    for (Path key : List.of(dir.resolve("certs").resolve(CertFiles.CA_KEY), s.keyFile())) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
          .as("mode of %s", key).isEqualTo("rw-------");
    }
  }

  @Test
  void refusesToOverwriteACaOrAServersFiles() {
    CertFiles.createCa(dir);
    CertFiles.createServer(dir, "m-1", List.of("127.0.0.1"));
    assertThatThrownBy(() -> CertFiles.createCa(dir)).isInstanceOfSatisfying(
        NyalaException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.ALREADY_PRESENT))
        .hasMessageContaining("already holds a CA");
    assertThatThrownBy(() -> CertFiles.createServer(dir, "m-1", List.of("127.0.0.1")))
        .hasMessageContaining("server m-1 already has");
  }

  @Test
  void namesWhatIsWrongWithAServerRequest() {
    assertThatThrownBy(() -> CertFiles.createServer(dir, "ts-1", List.of("127.0.0.1")))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageContaining("make the CA first");
    CertFiles.createCa(dir);
    assertThatThrownBy(() -> CertFiles.createServer(dir, "../x", List.of("127.0.0.1")))
        .hasMessageContaining("server name '../x'");
    assertThatThrownBy(() -> CertFiles.createServer(dir, "ts-1", List.of(" ")))
        .hasMessageContaining("server ts-1: no hosts given");
  }
}
