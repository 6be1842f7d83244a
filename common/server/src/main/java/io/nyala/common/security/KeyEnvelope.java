package io.nyala.common.security;

import io.nyala.common.NyalaException;
import java.nio.ByteBuffer;

/**
 * The clear prefix of a payload that carries its own key: {@code u8 version = 2, u32 cluster key
 * version (BE), u8 n, n bytes of the key wrapped (RFC 3394) under that cluster key}, followed by
 * a {@link WalSealer} blob sealed under the key. Anyone holding the cluster key opens it; nobody
 * else learns anything from it. Version 2 so that it is never mistaken for a bare
 * {@link WalSealer} blob (version 1).
 */
public final class KeyEnvelope {
  /** Byte 0 of an enveloped payload. */
  public static final byte VERSION = 2;
  private static final int FIXED = 6;

  /** An enveloped payload split into its wrapped key and where the sealed blob starts. */
  public record Parsed(WrappedKey key, int bodyOffset) {}

  private KeyEnvelope() {}

  /** The prefix to put before every payload sealed under the key {@code wrapped} wraps. */
  public static byte[] prefix(WrappedKey wrapped) {
    byte[] w = wrapped.wrapped();
    if (w.length > 255) {
      throw new IllegalArgumentException("wrapped key of " + w.length + " bytes");
    }
    return ByteBuffer.allocate(FIXED + w.length).put(VERSION)
        .putInt(wrapped.clusterKeyVersion()).put((byte) w.length).put(w).array();
  }

  /** Parses the prefix; CORRUPTION naming {@code owner} if it is short or of another version. */
  public static Parsed parse(String owner, byte[] payload) {
    if (payload.length < FIXED || payload[0] != VERSION) {
      String what = payload.length == 0 ? "empty" : payload[0] == WalSealer.VERSION
          ? "sealed under a key derived from the cluster key (the format before per-term random"
              + " keys, see docs/encryption.md): re-format this catalog"
          : "of unknown version " + (payload[0] & 0xff);
      throw NyalaException.corruption("%s: log payload is not a key envelope: %s", owner, what);
    }
    ByteBuffer b = ByteBuffer.wrap(payload, 1, payload.length - 1);
    int clusterKeyVersion = b.getInt();
    int n = b.get() & 0xff;
    if (b.remaining() < n) {
      throw NyalaException.corruption("%s: log payload of %d bytes is shorter than its %d-byte "
          + "wrapped key", owner, payload.length, n);
    }
    byte[] w = new byte[n];
    b.get(w);
    return new Parsed(new WrappedKey(clusterKeyVersion, w), FIXED + n);
  }
}
