package io.nyala.common.security;

import io.nyala.common.NyalaException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import javax.crypto.spec.SecretKeySpec;

/**
 * Raw bytes of one AES key (128, 192 or 256 bits). Immutable: the bytes are copied in and out,
 * so a caller cannot change a key another holds. {@link #toString()} shows only the size,
 * because keys end up in log lines and exception messages by accident.
 */
public final class KeyMaterial {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] bytes;

  private KeyMaterial(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A copy of {@code bytes} as a key; the length must be 16, 24 or 32. */
  public static KeyMaterial of(byte[] bytes) {
    checkAesLength(bytes.length * 8);
    return new KeyMaterial(bytes.clone());
  }

  /** A key parsed from hex (surrounding whitespace ignored). */
  public static KeyMaterial fromHex(String hex) {
    try {
      return of(HexFormat.of().parseHex(hex.strip()));
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("key is not valid hex of 32, 48 or 64 digits");
    }
  }

  /** A fresh key from the system's strong random source. */
  public static KeyMaterial random(int bits) {
    checkAesLength(bits);
    byte[] b = new byte[bits / 8];
    RANDOM.nextBytes(b);
    return new KeyMaterial(b);
  }

  /** Throws INVALID_ARGUMENT unless {@code bits} is an AES key size. */
  public static void checkAesLength(int bits) {
    if (bits != 128 && bits != 192 && bits != 256) {
      throw NyalaException.invalidArgument("AES key must be 128, 192 or 256 bits, got %d", bits);
    }
  }

  /** A copy of the key bytes; the caller should not keep it longer than needed. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The key as lower-case hex, for writing key files only. */
  public String toHex() {
    return HexFormat.of().formatHex(bytes);
  }

  public int bits() {
    return bytes.length * 8;
  }

  /** The key for JCE ciphers. */
  public SecretKeySpec toAesKey() {
    return new SecretKeySpec(bytes, "AES");
  }

  @Override
  public boolean equals(Object o) {
    // Constant time: equality of keys is sometimes checked on untrusted input.
    return o instanceof KeyMaterial k && MessageDigest.isEqual(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    // Only the length: a content hash would leak key bits through hash tables' timing.
    return bytes.length;
  }

  @Override
  public String toString() {
    return "KeyMaterial[" + bits() + " bits]";
  }

  /** Overwrites a temporary copy of key bytes. */
  static void wipe(byte[] b) {
    if (b != null) {
      Arrays.fill(b, (byte) 0);
    }
  }
}
