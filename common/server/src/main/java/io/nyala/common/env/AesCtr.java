package io.nyala.common.env;

import io.nyala.common.security.KeyMaterial;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-CTR positioned by physical file offset, through the JDK's cipher (AES-NI/VAES intrinsics).
 * The counter block for physical offset {@code p} is 8 zero bytes + big-endian {@code p / 16};
 * a start that is not 16-aligned skips {@code p % 16} keystream bytes. So any byte range can be
 * encrypted or decrypted on its own, which is what random reads and pwrites need.
 *
 * <p>Decryption applies the zero rule: an aligned 16-byte block whose ciphertext is all zero
 * reads as zeros, so holes, preallocated and crash-zeroed regions read as zeros as they do in
 * plain files. Only whole blocks are judged; a short block at end of file decrypts normally.
 */
final class AesCtr {
  static final int BLOCK = 16;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  // Cipher.getInstance is slow and a Cipher is not thread-safe: one per thread, re-initialised
  // with the key and counter of each call.
  private static final ThreadLocal<Cipher> CTR = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/CTR/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("JDK lacks AES/CTR", e);
    }
  });

  private final SecretKeySpec key;

  AesCtr(KeyMaterial key) {
    this.key = key.toAesKey();
  }

  /** XORs {@code len} bytes with the keystream at physical offset {@code phys} (no zero rule). */
  void crypt(long phys, byte[] in, int inOff, int len, byte[] out, int outOff) {
    if (len == 0) {
      return;
    }
    try {
      Cipher c = CTR.get();
      c.init(Cipher.ENCRYPT_MODE, key, new IvParameterSpec(counterBlock(phys)));
      int skip = (int) (phys % BLOCK);
      if (skip > 0) {
        c.update(new byte[skip]);
      }
      // One call for the whole range: the intrinsic's throughput needs long runs.
      c.doFinal(in, inOff, len, out, outOff);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-CTR failed: " + e, e);
    }
  }

  /**
   * Decrypts physical bytes {@code [blockStart + skip, blockStart + skip + n)} into {@code out}
   * with the zero rule. {@code ct} holds the ciphertext of {@code [blockStart, blockStart +
   * ctLen)}, {@code blockStart} 16-aligned, {@code ctLen} covering whole blocks around the range
   * except at end of file; only those whole blocks are judged.
   */
  void decrypt(long blockStart, byte[] ct, int ctLen, int skip, byte[] out, int outOff, int n) {
    crypt(blockStart + skip, ct, skip, n, out, outOff);
    int whole = ctLen / BLOCK;
    int last = Math.min(whole - 1, (skip + n - 1) / BLOCK);
    for (int b = skip / BLOCK; b <= last; b++) {
      int bs = b * BLOCK;
      if (isZeroBlock(ct, bs)) {
        int from = Math.max(bs, skip);
        int to = Math.min(bs + BLOCK, skip + n);
        Arrays.fill(out, outOff + from - skip, outOff + to - skip, (byte) 0);
      }
    }
  }

  static boolean isZeroBlock(byte[] b, int off) {
    return ((long) LONGS.get(b, off) | (long) LONGS.get(b, off + 8)) == 0;
  }

  static byte[] counterBlock(long phys) {
    long n = phys / BLOCK;
    byte[] iv = new byte[BLOCK];
    for (int i = 0; i < 8; i++) {
      iv[15 - i] = (byte) (n >>> (8 * i));
    }
    return iv;
  }
}
