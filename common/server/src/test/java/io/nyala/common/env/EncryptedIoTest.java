package io.nyala.common.env;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.security.KeyMaterial;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reads and writes through an encrypting env, checked against plain models and Bouncy Castle. */
@Timeout(30)
class EncryptedIoTest {
  private static final int H = EncryptionHeader.SIZE;
  private static final OpenOptions S = OpenOptions.SENSITIVE;

  @TempDir
  Path dir;

  private final KeyMaterial serverKey = KeyMaterial.random(256);

  private Env env(int bits) {
    return Env.encrypted(serverKey, bits);
  }

  @ParameterizedTest
  @ValueSource(ints = {128, 256})
  void randomPwritesMatchBouncyCastleByteForByte(int bits) throws Exception {
    Random rnd = new Random(bits);
    Path p = dir.resolve("f" + bits);
    byte[] model = new byte[70_000];
    boolean[] written = new boolean[model.length];
    int size = 0;
    try (ReadWriteFile f = env(bits).newReadWriteFile(p, S)) {
      for (int i = 0; i < 200; i++) {
        int off = rnd.nextInt(60_000);
        byte[] data = new byte[rnd.nextInt(i % 10 == 0 ? 9000 : 50) + 1];
        rnd.nextBytes(data);
        f.write(off, data);
        System.arraycopy(data, 0, model, off, data.length);
        Arrays.fill(written, off, off + data.length, true);
        size = Math.max(size, off + data.length);
        assertThat(f.size()).isEqualTo(size);
      }
      for (int i = 0; i < 300; i++) {
        int off = rnd.nextInt(size);
        int len = rnd.nextInt(Math.min(20_000, size - off)) + 1;
        assertThat(f.readFully(off, len)).as("read %d+%d", off, len)
            .isEqualTo(Arrays.copyOfRange(model, off, off + len));
      }
    }
    byte[] raw = Files.readAllBytes(p);
    assertThat(raw).hasSize(H + size);
    byte[] fileKey = BcReference.fileKey(Arrays.copyOf(raw, H), serverKey.bytes());
    assertThat(fileKey).hasSize(bits / 8);
    byte[] expected = BcReference.ctr(fileKey, H, Arrays.copyOf(model, size));
    for (int i = 0; i < size; i++) {
      if (written[i]) {
        assertThat(raw[H + i]).as("physical byte %d", H + i).isEqualTo(expected[i]);
      }
    }
    assertThat(env(bits).readFile(p, S)).isEqualTo(Arrays.copyOf(model, size));
  }

  @Test
  void unalignedAppendsAndSequentialReads() {
    Random rnd = new Random(7);
    Path p = dir.resolve("seq");
    byte[] all = new byte[10_007];
    rnd.nextBytes(all);
    try (WritableFile w = env(128).newWritableFile(p, S)) {
      for (int off = 0; off < all.length; ) {
        int n = Math.min(all.length - off, 1 + rnd.nextInt(37));
        w.append(all, off, n);
        off += n;
        assertThat(w.size()).isEqualTo(off);
      }
      w.sync();
    }
    ByteBuffer got = ByteBuffer.allocate(all.length);
    try (SequentialFile s = env(128).newSequentialFile(p, S)) {
      byte[] buf = new byte[13];
      assertThat(s.skip(5)).isEqualTo(5);
      got.put(all, 0, 5);
      int n;
      while ((n = s.read(buf, 0, 1 + rnd.nextInt(13))) > 0) {
        got.put(buf, 0, n);
      }
      assertThat(n).isEqualTo(-1);
    }
    assertThat(got.array()).isEqualTo(all);
    try (RandomReadFile r = env(128).newRandomReadFile(p, S)) {
      assertThat(r.isEncrypted()).isTrue();
      assertThat(r.size()).isEqualTo(all.length);
      assertThat(r.readFully(3, 21)).isEqualTo(Arrays.copyOfRange(all, 3, 24));
      assertThat(r.read(all.length, new byte[4], 0, 4)).isEqualTo(-1);
      byte[] tail = new byte[100];
      assertThat(r.read(all.length - 7, tail, 0, 100)).isEqualTo(7);
    }
  }

  @Test
  void truncateExtensionReadsDataThenZeros() throws IOException {
    Path p = dir.resolve("ext");
    byte[] data = random(1000);
    try (ReadWriteFile f = env(256).newReadWriteFile(p, S)) {
      f.write(0, data);
      f.truncate(5000);
      assertThat(f.size()).isEqualTo(5000);
      byte[] span = f.readFully(900, 300);
      assertThat(Arrays.copyOf(span, 100)).isEqualTo(Arrays.copyOfRange(data, 900, 1000));
      assertThat(Arrays.copyOfRange(span, 100, 300)).containsOnly(0);
      assertThat(f.readFully(4990, 10)).containsOnly(0);
    }
    // The middle of the extension really is zero ciphertext: the zero rule did the work.
    assertThat(physical(p, H + 2048, 32)).containsOnly(0);
  }

  @Test
  void preallocatedZeroTailReadsAsZeros() throws IOException {
    Path p = dir.resolve("prealloc");
    byte[] data = random(4096 - H);
    try (WritableFile w = env(128).newWritableFile(p, S)) {
      w.append(data);
    }
    // What fallocate or a crash leaves behind: whole file system blocks of zeros.
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(8192), 4096);
    }
    try (RandomReadFile r = env(128).newRandomReadFile(p, S)) {
      assertThat(r.size()).isEqualTo(data.length + 8192);
      byte[] span = r.readFully(data.length - 50, 250);
      assertThat(Arrays.copyOf(span, 50)).isEqualTo(Arrays.copyOfRange(data, data.length - 50,
          data.length));
      assertThat(Arrays.copyOfRange(span, 50, 250)).containsOnly(0);
    }
  }

  @Test
  void oneByteFileWithZeroCiphertextReadsItsPlaintext() throws IOException {
    Path p = dir.resolve("one");
    byte keystream;
    try (ReadWriteFile f = env(128).newReadWriteFile(p, S)) {
      f.write(0, new byte[] {0});
      keystream = physical(p, H, 1)[0];
      // Plaintext equal to the keystream byte encrypts to 0x00.
      f.write(0, new byte[] {keystream});
    }
    assertThat(Files.size(p)).isEqualTo(H + 1);
    assertThat(physical(p, H, 1)[0]).isEqualTo((byte) 0);
    assertThat(keystream).isNotEqualTo((byte) 0);
    assertThat(env(128).readFile(p, S)).containsExactly(keystream);
  }

  @Test
  void partialWritesInsideZeroRegionsKeepTheirNeighboursZero() {
    Path p = dir.resolve("holes");
    byte[] head = random(10);
    byte[] mid = random(5);
    byte[] far = random(3);
    try (ReadWriteFile f = env(192).newReadWriteFile(p, S)) {
      f.write(0, head);
      f.truncate(8192);
      f.write(4003, mid); // inside a whole zero-ciphertext block
      f.write(20_001, far); // past the end: a gap
      byte[] expected = new byte[20_004];
      System.arraycopy(head, 0, expected, 0, 10);
      System.arraycopy(mid, 0, expected, 4003, 5);
      System.arraycopy(far, 0, expected, 20_001, 3);
      assertThat(f.size()).isEqualTo(20_004);
      assertThat(f.readFully(0, 20_004)).isEqualTo(expected);
      assertThat(f.readFully(3990, 40)).isEqualTo(Arrays.copyOfRange(expected, 3990, 4030));
    }
  }

  @Test
  void truncateShrinksAndKeepsZeroTailsZero() {
    Path p = dir.resolve("shrink");
    byte[] data = random(3000);
    try (ReadWriteFile f = env(256).newReadWriteFile(p, S)) {
      f.write(0, data);
      f.truncate(1234);
      assertThat(f.size()).isEqualTo(1234);
      assertThat(f.readFully(0, 1234)).isEqualTo(Arrays.copyOf(data, 1234));
      f.truncate(9000);
      f.truncate(3001); // cuts a zero-ciphertext block in two
      assertThat(f.size()).isEqualTo(3001);
      assertThat(f.readFully(1200, 1801)).isEqualTo(
          Arrays.copyOf(Arrays.copyOfRange(data, 1200, 1234), 1801));
      f.sync();
    }
    assertThat(Env.encrypted(serverKey, 128).readFile(p, S)).hasSize(3001);
  }

  @Test
  void reopenedWritableFileAppendsAfterItsData() {
    Path p = dir.resolve("log");
    byte[] a = random(33);
    byte[] b = random(70);
    try (WritableFile w = env(128).newWritableFile(p, S)) {
      w.append(a);
    }
    try (WritableFile w = env(256).newWritableFile(p, S.withMode(OpenMode.OPEN_EXISTING))) {
      assertThat(w.size()).isEqualTo(33);
      w.append(b);
    }
    byte[] all = env(128).readFile(p, S);
    assertThat(Arrays.copyOf(all, 33)).isEqualTo(a);
    assertThat(Arrays.copyOfRange(all, 33, 103)).isEqualTo(b);
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  private static byte[] physical(Path p, long off, int len) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(len);
      ch.read(b, off);
      return b.array();
    }
  }
}
