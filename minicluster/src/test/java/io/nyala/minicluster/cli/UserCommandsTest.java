package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.security.token.PasswordFileVerifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nyala user add}: a credentials file the masters accept, one line of output. */
@Timeout(60)
class UserCommandsTest {
  @TempDir
  Path dir;

  @Test
  void addsAUserWhosePasswordTheMastersAccept() throws Exception {
    Path pw = dir.resolve("pw");
    Files.writeString(pw, "s3cret\n");
    Path users = dir.resolve("users");
    CliRun add = CliRun.nyala("user", "add", "--file", users.toString(), "--user", "alice",
        "--password-file", pw.toString());
    assertThat(add.status()).as(add.err()).isZero();
    assertThat(add.out()).isEqualTo("added user 'alice' to " + users + System.lineSeparator());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(users)))
        .isEqualTo("rw-------");
    assertThat(Files.readString(users)).doesNotContain("s3cret");
    assertThat(PasswordFileVerifier.read(users).verify("alice", "s3cret")).isTrue();

    CliRun again = CliRun.nyala("user", "add", "--file", users.toString(), "--user", "alice",
        "--password-file", pw.toString());
    assertThat(again.status()).isNotZero();
    assertThat(again.err()).contains("user 'alice' is already in " + users).hasLineCount(1);
  }
}
