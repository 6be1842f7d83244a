package io.nyala.common.security;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

/**
 * HKDF-SHA256 (RFC 5869) through Bouncy Castle, because the JDK 17 has no HKDF. Used to derive
 * subkeys (e.g. one WAL key per tablet and term) so that no single key encrypts enough messages
 * to approach AES-GCM's limits.
 */
public final class Hkdf {
  private Hkdf() {}

  /** {@code length} bytes of output keying material (extract then expand). */
  public static byte[] derive(byte[] ikm, byte[] salt, byte[] info, int length) {
    HKDFBytesGenerator gen = new HKDFBytesGenerator(new SHA256Digest());
    gen.init(new HKDFParameters(ikm, salt, info));
    byte[] out = new byte[length];
    gen.generateBytes(out, 0, length);
    return out;
  }

  /** An AES key of {@code bits} derived from {@code key}; {@code info} separates purposes. */
  public static KeyMaterial deriveKey(KeyMaterial key, byte[] salt, byte[] info, int bits) {
    KeyMaterial.checkAesLength(bits);
    byte[] ikm = key.bytes();
    byte[] okm = derive(ikm, salt, info, bits / 8);
    try {
      return KeyMaterial.of(okm);
    } finally {
      KeyMaterial.wipe(ikm);
      KeyMaterial.wipe(okm);
    }
  }
}
