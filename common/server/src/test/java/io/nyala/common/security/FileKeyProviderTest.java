package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Stream;
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
    Path hex = ownerOnly(dir.resolve("hex.key"));
    Files.writeString(hex, "  " + k.toHex().toUpperCase() + "\n");
    assertThat(FileKeyProvider.open(hex).clusterKey(1)).isEqualTo(k);
    Path raw = ownerOnly(dir.resolve("raw.key"));
    Files.write(raw, k.bytes());
    assertThat(FileKeyProvider.open(raw).clusterKey(1)).isEqualTo(k);
  }

  @Test
  void errorsNameTheFile() throws Exception {
    Path bad = ownerOnly(dir.resolve("bad.key"));
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

  @Test
  void eightServersCreatingOneKeyFileAtOnceAllGetTheOneKeyWritten() throws Exception {
    Path f = dir.resolve("keys/cluster.key");
    List<FileKeyProvider> created = allAtOnce(8, i -> FileKeyProvider.openOrCreate(f, 256));
    KeyMaterial onDisk = KeyMaterial.fromHex(Files.readString(f).strip());
    assertThat(created).extracting(p -> p.clusterKey(1)).containsOnly(onDisk);
    List<FileKeyProvider> reopened = allAtOnce(8, i -> FileKeyProvider.open(f));
    assertThat(reopened).extracting(p -> p.clusterKey(1)).containsOnly(onDisk);
    try (Stream<Path> s = Files.list(f.getParent())) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("cluster.key");
    }
  }

  @Test
  void aKeyFileCutShortIsNeverTakenAsAKey() throws Exception {
    String full = KeyMaterial.random(256).toHex();
    Path f = ownerOnly(dir.resolve("cluster.key"));
    // Half of a 256-bit key is a well-formed 128-bit one; a raw-looking 16 bytes likewise.
    for (String cut : List.of(full.substring(0, 32), full.substring(0, 16), "")) {
      Files.writeString(f, cut);
      assertThatThrownBy(() -> FileKeyProvider.open(f, 20))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
          .hasMessageContaining(f.toString()).hasMessageContaining("truncated");
    }
  }

  @Test
  void aReaderWaitsForAKeyFileBeingWritten() throws Exception {
    KeyMaterial k = KeyMaterial.random(256);
    Path f = ownerOnly(dir.resolve("cluster.key"));
    Files.writeString(f, k.toHex().substring(0, 32));
    CompletableFuture<FileKeyProvider> reader =
        CompletableFuture.supplyAsync(() -> FileKeyProvider.open(f, 5_000));
    Files.writeString(f, k.toHex() + "\n");
    assertThat(reader.get().clusterKey(1)).isEqualTo(k);
  }

  @Test
  void refusesAKeyFileThatGroupOrOthersMayReadOrWrite() throws Exception {
    KeyMaterial k = KeyMaterial.random(256);
    for (String mode : List.of("rw-r--r--", "rw-r-----", "rw--w----", "rw----r--", "rw-----w-",
        "rw-rw-rw-")) {
      Path f = dir.resolve("exposed-" + mode.replace('-', '_') + ".key");
      Files.writeString(f, k.toHex() + "\n");
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
      assertThatThrownBy(() -> FileKeyProvider.open(f))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("cluster key file " + f)
          .hasMessageContaining("has mode " + mode)
          .hasMessageContaining("chmod 600 " + f);
      assertThatThrownBy(() -> FileKeyProvider.openOrCreate(f, 256))
          .hasMessageContaining("chmod 600 " + f);
    }
  }

  @Test
  void opensAKeyFileOnlyItsOwnerMayReadOrRun() throws Exception {
    KeyMaterial k = KeyMaterial.random(256);
    for (String mode : List.of("rw-------", "r--------", "rwx--x--x")) {
      Path f = dir.resolve("owned-" + mode.replace('-', '_') + ".key");
      Files.writeString(f, k.toHex() + "\n");
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
      assertThat(FileKeyProvider.open(f).clusterKey(1)).isEqualTo(k);
    }
  }

  @Test
  void opensAKeyFileOnAFileSystemWithoutPosixPermissions() throws Exception {
    // A zip file system keeps no POSIX permissions: nothing to check, so the key is opened.
    KeyMaterial k = KeyMaterial.random(256);
    URI zip = URI.create("jar:" + dir.resolve("keys.zip").toUri());
    try (FileSystem fs = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
      Path f = fs.getPath("/cluster.key");
      Files.writeString(f, k.toHex() + "\n");
      assertThat(FileKeyProvider.open(f).clusterKey(1)).isEqualTo(k);
    }
  }

  /** Creates {@code f} empty and owner-only, as a key file must be. */
  private static Path ownerOnly(Path f) throws Exception {
    return Files.createFile(f, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
  }

  private static List<FileKeyProvider> allAtOnce(int n, Function<Integer, FileKeyProvider> task)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CyclicBarrier start = new CyclicBarrier(n);
      List<CompletableFuture<FileKeyProvider>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int index = i;
        fs.add(CompletableFuture.supplyAsync(() -> {
          try {
            start.await();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          return task.apply(index);
        }, pool));
      }
      List<FileKeyProvider> out = new ArrayList<>();
      for (CompletableFuture<FileKeyProvider> f : fs) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
