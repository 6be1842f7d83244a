package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class FileKeyProviderTest {
  @TempDir
  Path dir;

  @Test
  void createsKeyFileOwnerOnlyAndReopensTheSameKey() throws Exception {
    Path f = dir.resolve("keys/cluster.key");
    FileKeyProvider p = FileKeyProvider.openOrCreate(f, 256);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-------");
    assertThat(Files.readString(f, StandardCharsets.US_ASCII).strip()).hasSize(64);
    assertThat(p.clusterKey(1).bits()).isEqualTo(256);
    assertThat(FileKeyProvider.openOrCreate(f, 128).clusterKey(1)).isEqualTo(p.clusterKey(1));
    assertThat(Files.exists(dir.resolve("keys/cluster.key.tmp"))).isFalse();
  }

  @Test
  void readsHexAndRawKeyFiles() throws Exception {
    KeyMaterial k = KeyMaterial.random(192);
    Path hex = dir.resolve("hex.key");
    Files.writeString(hex, "  " + k.toHex().toUpperCase() + "\n");
    assertThat(FileKeyProvider.open(hex).clusterKey(1)).isEqualTo(k);
    Path raw = dir.resolve("raw.key");
    Files.write(raw, k.bytes());
    assertThat(FileKeyProvider.open(raw).clusterKey(1)).isEqualTo(k);
  }

  @Test
  void errorsNameTheFile() throws Exception {
    Path bad = dir.resolve("bad.key");
    Files.writeString(bad, "not a key");
    assertThatThrownBy(() -> FileKeyProvider.open(bad))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining(bad.toString());
    assertThatThrownBy(() -> FileKeyProvider.open(dir.resolve("missing.key")))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
    FileKeyProvider p = FileKeyProvider.openOrCreate(dir.resolve("c.key"), 128);
    assertThatThrownBy(() -> p.clusterKey(2)).isInstanceOf(NyalaException.class)
        .hasMessageContaining("version 2");
  }

  @Test
  void wrapsServerKeysUnderTheClusterKey() {
    FileKeyProvider p = FileKeyProvider.openOrCreate(dir.resolve("c.key"), 256);
    KeyMaterial server = KeyMaterial.random(256);
    WrappedKey w = p.wrapServerKey(server);
    assertThat(w.clusterKeyVersion()).isEqualTo(p.currentVersion());
    assertThat(w.wrapped()).hasSize(40);
    assertThat(p.unwrapServerKey(w, "server key")).isEqualTo(server);
    assertThat(KeyWrap.unwrap(p.clusterKey(1), w.wrapped(), "again")).isEqualTo(server);
  }
}
