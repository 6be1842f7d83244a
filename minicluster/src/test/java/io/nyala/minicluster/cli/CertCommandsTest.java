package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.security.tls.WireTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nyala cert}: the files a server's TLS flags take, one line of output each. */
@Timeout(60)
class CertCommandsTest {
  @TempDir
  Path dir;

  @Test
  void makesACaAndServerFilesAServerAccepts() throws Exception {
    CliRun ca = CliRun.nyala("cert", "create-ca", "--dir", dir.toString());
    assertThat(ca.status()).as(ca.err()).isZero();
    assertThat(ca.out()).isEqualTo("wrote CA certificate " + dir.resolve("ca.crt") + " and key "
        + dir.resolve("ca.key") + System.lineSeparator());

    CliRun ts = CliRun.nyala("cert", "create-server", "--dir", dir.toString(), "--name", "ts-1",
        "--hosts", "127.0.0.1,ts1.example.com");
    assertThat(ts.status()).as(ts.err()).isZero();
    assertThat(ts.out()).startsWith("wrote certificate " + dir.resolve("ts-1.crt") + " and key "
        + dir.resolve("ts-1.key") + " of server ts-1 for 127.0.0.1,ts1.example.com")
        .hasLineCount(1);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(
        dir.resolve("ts-1.key")))).isEqualTo("rw-------");
    assertThat(WireTls.fromFlags("required", dir.resolve("ts-1.crt").toString(),
        dir.resolve("ts-1.key").toString(), dir.resolve("ca.crt").toString()).enabled()).isTrue();
  }

  @Test
  void aServerWithoutACaFailsInOneLine() {
    CliRun ts = CliRun.nyala("cert", "create-server", "--dir", dir.toString(), "--name", "ts-1",
        "--hosts", "127.0.0.1");
    assertThat(ts.status()).isNotZero();
    assertThat(ts.err()).contains("make the CA first").hasLineCount(1);
  }
}
