package io.nyala.common.env;

import io.nyala.common.NyalaException;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyWrap;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The 64-byte header at offset 0 of every encrypted file.
 *
 * <pre>
 * offset  size  field
 *  0       8    magic "NYALAENC" (ASCII)
 *  8       1    format version = 1
 *  9       1    algorithm id: 1 = AES-128-CTR, 2 = AES-192-CTR, 3 = AES-256-CTR
 * 10       6    reserved, zero
 * 16    k + 8   the per-file key (k = 16, 24 or 32 bytes, per the algorithm) wrapped by the
 *               server key with RFC 3394 AES key wrap
 * 24+k  40-k    zero padding up to byte 64
 * </pre>
 *
 * Every byte is checked when a file is opened: magic, version, algorithm and all zero bytes
 * directly, the wrapped key through key wrap's integrity check. So a flipped header byte, or a
 * wrong server key, is a clear CORRUPTION naming the file rather than silent garbage.
 */
public final class EncryptionHeader {
  /** Bytes of the header; logical data starts here. Multiple of 16 so blocks stay aligned. */
  public static final int SIZE = 64;
  public static final int VERSION = 1;
  private static final byte[] MAGIC = "NYALAENC".getBytes(StandardCharsets.US_ASCII);
  private static final int WRAPPED_KEY_OFFSET = 16;

  private EncryptionHeader() {}

  /** True if {@code header} (at least 8 bytes) starts with the magic; for tools sniffing files. */
  public static boolean hasMagic(byte[] header) {
    return header.length >= MAGIC.length
        && Arrays.equals(header, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
  }

  /** The header of a new file whose key {@code fileKey} is wrapped by {@code serverKey}. */
  public static byte[] create(CipherAlgorithm alg, KeyMaterial fileKey, KeyMaterial serverKey) {
    if (fileKey.bits() != alg.keyBits()) {
      throw NyalaException.invalidArgument("%s needs a %d-bit file key, got %d bits", alg,
          alg.keyBits(), fileKey.bits());
    }
    byte[] h = new byte[SIZE];
    System.arraycopy(MAGIC, 0, h, 0, MAGIC.length);
    h[8] = VERSION;
    h[9] = (byte) alg.id();
    byte[] wrapped = KeyWrap.wrap(serverKey, fileKey);
    System.arraycopy(wrapped, 0, h, WRAPPED_KEY_OFFSET, wrapped.length);
    return h;
  }

  /**
   * The algorithm and per-file key of a file; CORRUPTION naming {@code file} if anything is off.
   */
  public static Parsed parse(String file, byte[] h, int length, KeyMaterial serverKey) {
    if (length < SIZE) {
      throw NyalaException.corruption("encrypted file %s: truncated encryption header (%d bytes, "
          + "need %d)", file, length, SIZE);
    }
    if (!hasMagic(h)) {
      throw NyalaException.corruption("encrypted file %s: bad magic %s, expected NYALAENC (not an "
          + "encrypted file, or a plain file opened as sensitive)", file,
          HexFormat.of().formatHex(h, 0, MAGIC.length));
    }
    if (h[8] != VERSION) {
      throw NyalaException.corruption("encrypted file %s: unsupported encryption header version "
          + "%d (this build reads version %d)", file, h[8] & 0xff, VERSION);
    }
    CipherAlgorithm alg = CipherAlgorithm.fromId(h[9] & 0xff);
    if (alg == null) {
      throw NyalaException.corruption("encrypted file %s: unknown cipher algorithm id %d in "
          + "encryption header", file, h[9] & 0xff);
    }
    int wrappedEnd = WRAPPED_KEY_OFFSET + alg.keyBytes() + KeyWrap.OVERHEAD;
    checkZero(file, h, 10, WRAPPED_KEY_OFFSET);
    checkZero(file, h, wrappedEnd, SIZE);
    byte[] wrapped = Arrays.copyOfRange(h, WRAPPED_KEY_OFFSET, wrappedEnd);
    KeyMaterial key = KeyWrap.unwrap(serverKey, wrapped, "encrypted file " + file
        + ": per-file key in encryption header");
    return new Parsed(alg, key);
  }

  private static void checkZero(String file, byte[] h, int from, int to) {
    for (int i = from; i < to; i++) {
      if (h[i] != 0) {
        throw NyalaException.corruption("encrypted file %s: encryption header byte %d is 0x%02x, "
            + "expected zero padding", file, i, h[i] & 0xff);
      }
    }
  }

  /** What a valid header holds. */
  public record Parsed(CipherAlgorithm algorithm, KeyMaterial fileKey) {}
}
