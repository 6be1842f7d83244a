package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading and writing the client configuration file that {@code nyala local-cluster} writes. */
class ClientConfigTest {
  @TempDir
  Path dir;

  @Test
  void formatReadsBackAndThePasswordComesFromItsFile() throws IOException {
    Path pw = Files.writeString(dir.resolve("user.password"), "s3cret\nignored\n");
    ClientConfig c = new ClientConfig("127.0.0.1:7051,127.0.0.1:7151", dir.resolve("ca.crt"),
        "alice", pw);
    Path file = Files.writeString(dir.resolve("client.properties"), c.format());

    ClientConfig read = ClientConfig.read(file);

    assertThat(read).isEqualTo(c);
    assertThat(read.password()).isEqualTo("s3cret");
    assertThat(Files.readString(file)).doesNotContain("s3cret");
  }

  @Test
  void relativePathsAreReadFromTheFilesDirectoryAndKeysAreOptional() throws IOException {
    Path file = Files.writeString(dir.resolve("c.properties"), "trusted_ca_file=tls/ca.crt\n");

    ClientConfig read = ClientConfig.read(file);

    assertThat(read.trustedCaFile()).isEqualTo(dir.toAbsolutePath().resolve("tls/ca.crt"));
    assertThat(read.masters()).isNull();
    assertThat(read.user()).isNull();
    assertThat(read.password()).isNull();
  }

  @Test
  void refusesUnknownKeysAUserWithoutPasswordFileAndAMissingFile() throws IOException {
    Path typo = Files.writeString(dir.resolve("typo.properties"), "trusted_ca=ca.crt\n");
    assertThatThrownBy(() -> ClientConfig.read(typo))
        .hasMessageContaining(typo.toString()).hasMessageContaining("unknown key 'trusted_ca'");

    Path noPw = Files.writeString(dir.resolve("nopw.properties"), "user=alice\n");
    assertThatThrownBy(() -> ClientConfig.read(noPw))
        .hasMessageContaining(noPw.toString()).hasMessageContaining("user alice")
        .hasMessageContaining("password_file null");

    Path missing = dir.resolve("missing.properties");
    assertThatThrownBy(() -> ClientConfig.read(missing)).isInstanceOfSatisfying(
        NyalaException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageContaining(missing.toString()).hasMessageContaining(ClientConfig.ENV);
  }

  @Test
  void aMissingPasswordFileIsNamed() {
    ClientConfig c = new ClientConfig(null, null, "alice", dir.resolve("gone"));
    assertThatThrownBy(c::password).hasMessageContaining(dir.resolve("gone").toString())
        .hasMessageContaining("alice");
  }
}
