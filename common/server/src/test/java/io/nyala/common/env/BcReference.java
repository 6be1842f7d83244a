package io.nyala.common.env;

import java.util.Arrays;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.engines.RFC3394WrapEngine;
import org.bouncycastle.crypto.modes.CTRModeCipher;
import org.bouncycastle.crypto.modes.SICBlockCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * The independent reference for file encryption: Bouncy Castle's pure-Java AES (no JCE), used
 * to compute what the physical bytes of an encrypted file must be.
 */
final class BcReference {
  private BcReference() {}

  /** CTR of {@code in} at physical offset {@code phys}: counter 8 zero bytes + BE(phys / 16). */
  static byte[] ctr(byte[] key, long phys, byte[] in) {
    byte[] iv = new byte[16];
    long block = phys / 16;
    for (int i = 0; i < 8; i++) {
      iv[15 - i] = (byte) (block >>> (8 * i));
    }
    CTRModeCipher c = SICBlockCipher.newInstance(AESEngine.newInstance());
    c.init(true, new ParametersWithIV(new KeyParameter(key), iv));
    int skip = (int) (phys % 16);
    c.processBytes(new byte[skip], 0, skip, new byte[skip], 0);
    byte[] out = new byte[in.length];
    c.processBytes(in, 0, in.length, out, 0);
    return out;
  }

  /** The per-file key of an encrypted file's header, unwrapped with BC's RFC 3394 engine. */
  static byte[] fileKey(byte[] header, byte[] serverKey) throws InvalidCipherTextException {
    int keyBytes = switch (header[9]) {
      case 1 -> 16;
      case 2 -> 24;
      case 3 -> 32;
      default -> throw new IllegalArgumentException("algorithm " + header[9]);
    };
    RFC3394WrapEngine wrap = new RFC3394WrapEngine(AESEngine.newInstance());
    wrap.init(false, new KeyParameter(serverKey));
    return wrap.unwrap(Arrays.copyOfRange(header, 16, 16 + keyBytes + 8), 0, keyBytes + 8);
  }
}
