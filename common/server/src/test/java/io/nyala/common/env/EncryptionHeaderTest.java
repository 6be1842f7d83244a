package io.nyala.common.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.WrappedKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The 64-byte header: layout, and a clear error for every way it can be wrong. */
@Timeout(30)
class EncryptionHeaderTest {
  private static final OpenOptions S = OpenOptions.SENSITIVE;

  @TempDir
  Path dir;

  private final KeyMaterial serverKey = KeyMaterial.random(128);
  private final Env env = Env.encrypted(serverKey, 256);

  private Path writeFile(String name, String content) {
    Path p = dir.resolve(name);
    env.replaceFile(p, content.getBytes(StandardCharsets.UTF_8), S);
    return p;
  }

  @Test
  void headerLayout() throws IOException {
    Path p = writeFile("meta", "hello");
    byte[] raw = Files.readAllBytes(p);
    assertThat(raw).hasSize(64 + 5);
    assertThat(new String(raw, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("NYALAENC");
    assertThat(raw[8]).isEqualTo((byte) 1);
    assertThat(raw[9]).isEqualTo((byte) CipherAlgorithm.AES_256_CTR.id());
    assertThat(Arrays.copyOfRange(raw, 10, 16)).containsOnly(0);
    assertThat(Arrays.copyOfRange(raw, 16, 56)).isNotEqualTo(new byte[40]);
    assertThat(Arrays.copyOfRange(raw, 56, 64)).containsOnly(0);
    assertThat(new String(env.readFile(p, S), StandardCharsets.UTF_8)).isEqualTo("hello");
  }

  @Test
  void everyFlippedHeaderByteIsACorruptionNamingTheFile() throws IOException {
    Path p = writeFile("flip", "some data");
    byte[] good = Files.readAllBytes(p);
    for (int i = 0; i < EncryptionHeader.SIZE; i++) {
      byte[] bad = good.clone();
      bad[i] ^= 0x10;
      Files.write(p, bad);
      assertCorruption(() -> env.readFile(p, S), p.toString());
    }
    Files.write(p, good);
    assertThat(env.readFile(p, S)).hasSize(9);
  }

  @Test
  void specificHeaderDamageIsNamed() throws IOException {
    Path p = writeFile("named", "x");
    byte[] good = Files.readAllBytes(p);
    byte[] badVersion = good.clone();
    badVersion[8] = 7;
    Files.write(p, badVersion);
    assertCorruption(() -> env.readFile(p, S), "unsupported encryption header version 7");
    byte[] badAlg = good.clone();
    badAlg[9] = 9;
    Files.write(p, badAlg);
    assertCorruption(() -> env.readFile(p, S), "unknown cipher algorithm id 9");
    Files.write(p, Arrays.copyOf(good, 30));
    assertCorruption(() -> env.newRandomReadFile(p, S), "truncated encryption header (30 bytes");
    Files.write(p, "plain text that is long enough to fill a whole header of 64 bytes, surely"
        .getBytes(StandardCharsets.US_ASCII));
    assertCorruption(() -> env.readFile(p, S), "bad magic");
  }

  @Test
  void wrongServerKeyIsACorruptionNamingTheFile() {
    Path p = writeFile("secret", "payload");
    Env other = Env.encrypted(KeyMaterial.random(128), 256);
    assertCorruption(() -> other.readFile(p, S), p + ": per-file key in encryption header");
    assertCorruption(() -> other.newWritableFile(p, S.withMode(OpenMode.OPEN_EXISTING)),
        "integrity check failed");
  }

  @Test
  void wrongClusterKeyIsACorruptionNamingTheKeyFile() {
    FileKeyProvider right = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    FileKeyProvider wrong = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    WrappedKey stored = right.wrapServerKey(serverKey);
    Path instance = dir.resolve("instance");
    assertThat(right.unwrapServerKey(stored, "server key in " + instance)).isEqualTo(serverKey);
    assertThatThrownBy(() -> wrong.unwrapServerKey(stored, "server key in " + instance))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("server key in " + instance)
        .hasMessageContaining(dir.resolve("other.key").toString());
  }

  @Test
  void notSensitiveOrNotEncryptingMeansPlain() throws IOException {
    Path a = dir.resolve("log.txt");
    env.replaceFile(a, "abc".getBytes(StandardCharsets.US_ASCII), OpenOptions.NOT_SENSITIVE);
    assertThat(Files.readAllBytes(a)).containsExactly('a', 'b', 'c');
    Path b = dir.resolve("plain-env");
    Env.plain().replaceFile(b, "xyz".getBytes(StandardCharsets.US_ASCII), S);
    assertThat(Files.readAllBytes(b)).containsExactly('x', 'y', 'z');
    try (RandomReadFile r = env.newRandomReadFile(a, OpenOptions.NOT_SENSITIVE)) {
      assertThat(r.isEncrypted()).isFalse();
      assertThat(r.size()).isEqualTo(3);
    }
    assertThat(Env.plain().isEncrypting()).isFalse();
    assertThat(env.isEncrypting()).isTrue();
  }

  private static void assertCorruption(ThrowingCallable call, String fragment) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining(fragment);
  }
}
