package io.nyala.common.security;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;

/**
 * Authenticated AES key wrap through the JDK: RFC 3394 ({@code AES/KW/NoPadding}, for keys whose
 * length is a multiple of 8) and RFC 5649 ({@code AES/KWP/NoPadding}, any length). The integrity
 * check built into both turns a wrong wrapping key or a damaged blob into a clear error instead
 * of a garbage key that would silently decrypt to noise.
 */
public final class KeyWrap {
  /** Bytes RFC 3394 adds to the wrapped key (the integrity check value). */
  public static final int OVERHEAD = 8;

  private static final String KW = "AES/KW/NoPadding";
  private static final String KWP = "AES/KWP/NoPadding";

  private KeyWrap() {}

  /** RFC 3394 wrap of {@code key} (16, 24 or 32 bytes) under {@code kek}. */
  public static byte[] wrap(KeyMaterial kek, KeyMaterial key) {
    return run(KW, Cipher.ENCRYPT_MODE, kek, key.bytes(), "key");
  }

  /**
   * RFC 3394 unwrap. {@code what} names the thing the key belongs to (a file, a server) so the
   * CORRUPTION error for a wrong key or damaged blob says where to look.
   */
  public static KeyMaterial unwrap(KeyMaterial kek, byte[] wrapped, String what) {
    byte[] raw = run(KW, Cipher.DECRYPT_MODE, kek, wrapped, what);
    try {
      return KeyMaterial.of(raw);
    } finally {
      KeyMaterial.wipe(raw);
    }
  }

  /** RFC 5649 wrap of arbitrary bytes (at least 1) under {@code kek}. */
  public static byte[] wrapWithPadding(KeyMaterial kek, byte[] secret) {
    return run(KWP, Cipher.ENCRYPT_MODE, kek, secret, "secret");
  }

  /** RFC 5649 unwrap; errors as {@link #unwrap}. */
  public static byte[] unwrapWithPadding(KeyMaterial kek, byte[] wrapped, String what) {
    return run(KWP, Cipher.DECRYPT_MODE, kek, wrapped, what);
  }

  private static byte[] run(String transform, int mode, KeyMaterial kek, byte[] in, String what) {
    try {
      // Key wrap is rare (file open, server start): a fresh Cipher keeps this thread-safe.
      Cipher c = Cipher.getInstance(transform);
      c.init(mode, kek.toAesKey());
      return c.doFinal(in);
    } catch (GeneralSecurityException e) {
      if (mode == Cipher.ENCRYPT_MODE) {
        throw new NyalaException(StatusCode.INVALID_ARGUMENT,
            "cannot wrap " + what + " with " + transform + ": " + e.getMessage(), e);
      }
      throw new NyalaException(StatusCode.CORRUPTION, what + ": key unwrap integrity check failed "
          + "(wrong wrapping key, or the wrapped key is damaged)", e);
    }
  }
}
