package io.nyala.common.security.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The masters' {@code --user_credentials_file}, written and read as real files. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PasswordFileVerifierTest {
  @TempDir
  Path dir;

  @Test
  void addedUsersVerifyWithTheirPasswordOnlyAndTheFileIsOwnerOnly() throws Exception {
    Path f = dir.resolve("users");
    PasswordFileVerifier.addUser(f, "alice", "s3cret");
    PasswordFileVerifier.addUser(f, "bob", "hunter2");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-------");
    assertThat(Files.readString(f)).doesNotContain("s3cret").contains("alice:pbkdf2-sha256$");

    PasswordFileVerifier v = PasswordFileVerifier.read(f);
    assertThat(v.verify("alice", "s3cret")).isTrue();
    assertThat(v.verify("bob", "hunter2")).isTrue();
    assertThat(v.verify("alice", "hunter2")).isFalse();
    assertThat(v.verify("carol", "s3cret")).isFalse();
  }

  @Test
  void aSecondAddOfAUserIsRefused() {
    Path f = dir.resolve("users");
    PasswordFileVerifier.addUser(f, "alice", "a");
    assertThatThrownBy(() -> PasswordFileVerifier.addUser(f, "alice", "b"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.ALREADY_PRESENT))
        .hasMessageContaining("user 'alice' is already in " + f);
  }

  @Test
  void badNamesAndFilesAreRefusedNamingTheProblem() throws Exception {
    assertThatThrownBy(() -> PasswordFileVerifier.addUser(dir.resolve("u"), "a:b", "x"))
        .hasMessageContaining("user name 'a:b'");
    Path exposed = dir.resolve("exposed");
    Files.writeString(exposed, "alice:x\n");
    Files.setPosixFilePermissions(exposed, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> PasswordFileVerifier.read(exposed))
        .hasMessageContaining("user credentials file " + exposed + " has mode rw-r--r--");
    Path malformed = dir.resolve("malformed");
    Files.writeString(malformed, "# users\nalice\n");
    Files.setPosixFilePermissions(malformed, PosixFilePermissions.fromString("rw-------"));
    assertThatThrownBy(() -> PasswordFileVerifier.read(malformed))
        .hasMessageContaining("line 2: expected user:password-hash");
  }
}
