package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Key versions in the cluster key file (docs/encryption.md, "Rotating the cluster key"). */
@Timeout(20)
class FileKeyProviderVersionsTest {
  @TempDir
  Path dir;

  @Test
  void theOldOneKeyFileReadsAsVersionOneAndAddingAVersionKeepsIt() throws Exception {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider p = FileKeyProvider.openOrCreate(f, 256);
    KeyMaterial one = p.clusterKey(1);
    assertThat(p.versions()).containsExactly(1);
    WrappedKey underOne = p.wrapServerKey(KeyMaterial.random(256));

    assertThat(FileKeyProvider.addVersion(f, 128)).isEqualTo(2);

    FileKeyProvider reopened = FileKeyProvider.open(f);
    assertThat(reopened.versions()).containsExactly(1, 2);
    assertThat(reopened.currentVersion()).isEqualTo(2);
    assertThat(reopened.clusterKey(1)).isEqualTo(one);
    assertThat(reopened.clusterKey(2).bits()).isEqualTo(128);
    assertThat(Files.readString(f, StandardCharsets.US_ASCII)).contains("\n1:", "\n2:");
    KeyMaterial server = KeyMaterial.random(256);
    WrappedKey underTwo = reopened.wrapServerKey(server);
    assertThat(underTwo.clusterKeyVersion()).isEqualTo(2);
    assertThat(reopened.unwrapServerKey(underTwo, "k")).isEqualTo(server);
    assertThat(reopened.unwrapServerKey(underOne, "k"))
        .isEqualTo(p.unwrapServerKey(underOne, "k"));
  }

  @Test
  void aProviderUsesANewVersionAfterReloadAndFindsOneItWasNotToldOf() {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider p = FileKeyProvider.openOrCreate(f, 256);
    FileKeyProvider.addVersion(f, 256);
    assertThat(p.currentVersion()).as("before reload").isEqualTo(1);
    assertThat(p.wrapServerKey(KeyMaterial.random(128)).clusterKeyVersion()).isEqualTo(1);
    // A wrap under version 2 reaches a server before its reload: it looks the version up.
    FileKeyProvider other = FileKeyProvider.open(f);
    KeyMaterial k = KeyMaterial.random(128);
    assertThat(p.unwrapServerKey(other.wrapServerKey(k), "k")).isEqualTo(k);
    assertThat(p.currentVersion()).isEqualTo(2);
    p.reload();
    assertThat(p.wrapServerKey(k).clusterKeyVersion()).isEqualTo(2);
  }

  @Test
  void theFileIsReplacedOwnerOnlyNeverRewrittenInPlace() throws Exception {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider.openOrCreate(f, 256);
    Object before = Files.readAttributes(f, BasicFileAttributes.class).fileKey();
    FileKeyProvider.addVersion(f, 256);
    Object after = Files.readAttributes(f, BasicFileAttributes.class).fileKey();
    assertThat(after).as("a new file (inode) took the name").isNotEqualTo(before);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-------");
    FileKeyProvider.retireVersionsBefore(f, 2);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-------");
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .as("no temp file left").allMatch(n -> n.equals("cluster.key")
              || n.equals("cluster.key.lock"));
    }
  }

  @Test
  void changingAKeyFileGroupOrOthersMayReadIsRefusedAndLeavesItAlone() throws Exception {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider.openOrCreate(f, 256);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    byte[] before = Files.readAllBytes(f);
    assertThatThrownBy(() -> FileKeyProvider.addVersion(f, 256))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining(f.toString()).hasMessageContaining("chmod 600");
    assertThatThrownBy(() -> FileKeyProvider.retireVersionsBefore(f, 1))
        .hasMessageContaining("chmod 600");
    assertThat(Files.readAllBytes(f)).isEqualTo(before);
  }

  @Test
  void retiringRemovesOlderVersionsAndAWrapUnderOneIsThenANotFoundNamingFileAndVersion() {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider p = FileKeyProvider.openOrCreate(f, 256);
    WrappedKey old = p.wrapServerKey(KeyMaterial.random(256));
    FileKeyProvider.addVersion(f, 256);
    FileKeyProvider.addVersion(f, 256);
    assertThat(FileKeyProvider.retireVersionsBefore(f, 3)).containsExactly(1, 2);
    assertThat(FileKeyProvider.retireVersionsBefore(f, 3)).isEmpty();
    p.reload();
    assertThat(p.versions()).containsExactly(3);
    assertThatThrownBy(() -> p.unwrapServerKey(old, "server key in instance file X"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageContaining("version 1").hasMessageContaining(f.toString())
        .hasMessageContaining("retired");
    assertThatThrownBy(() -> FileKeyProvider.retireVersionsBefore(f, 4))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageContaining("version 4").hasMessageContaining(f.toString());
    assertThat(FileKeyProvider.open(f).versions()).containsExactly(3);
  }

  @Test
  void malformedVersionLinesNameTheFileAndLine() throws Exception {
    Path f = dir.resolve("bad.key");
    FileKeyProvider.openOrCreate(f, 256);
    String good = "1:" + KeyMaterial.random(256).toHex() + "\n";
    Files.writeString(f, good + "x:" + KeyMaterial.random(256).toHex() + "\n");
    assertThatThrownBy(() -> FileKeyProvider.open(f))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining(f.toString()).hasMessageContaining("line 2");
    Files.writeString(f, good + good);
    assertThatThrownBy(() -> FileKeyProvider.open(f)).hasMessageContaining("version 1 twice");
  }

  @Test
  void toolsAddingVersionsAtOnceEachGetTheirOwn() throws Exception {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider.openOrCreate(f, 256);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> added = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        added.add(pool.submit(() -> FileKeyProvider.addVersion(f, 256)));
      }
      HashSet<Integer> versions = new HashSet<>();
      for (Future<Integer> v : added) {
        versions.add(v.get());
      }
      assertThat(versions).containsExactlyInAnyOrder(2, 3, 4, 5, 6, 7, 8, 9);
      assertThat(FileKeyProvider.open(f).versions()).hasSize(9);
    } finally {
      pool.shutdownNow();
    }
  }
}
