package io.nyala.common.security;

import java.io.PrintStream;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.CTRModeCipher;
import org.bouncycastle.crypto.modes.SICBlockCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * Throughput of AES-CTR encrypt+decrypt, JDK (intrinsics) against Bouncy Castle (pure Java), at
 * 4 KiB and 1 MiB chunks with 128- and 256-bit keys; one line per combination. Each call
 * re-initialises its cipher with a fresh counter, as the encrypted env does, so the per-call
 * cost shows at small chunks. Runs a warm-up first because the AES intrinsics only apply once
 * the calling code is JIT-compiled. Backs {@code nyala bench crypto}; prints, never asserts.
 */
public final class CryptoBench {
  private static final int[] CHUNKS = {4 << 10, 1 << 20};
  private static final int[] KEY_BITS = {128, 256};

  private CryptoBench() {}

  /** Runs every combination, measuring each for {@code perCase} after a warm-up of the same. */
  public static void run(PrintStream out, Duration perCase) {
    out.printf("crypto bench: AES-CTR encrypt+decrypt, MB/s of plaintext (1 MB = 10^6 bytes), "
        + "%d ms per case after warm-up%n", perCase.toMillis());
    long sink = 0;
    // Small calls first: the JIT compiles (and so intrinsifies) the JDK's CTR loop only after
    // many invocations, which a few 1 MiB calls never reach.
    for (int bits : KEY_BITS) {
      sink += measure(new JceWorker(new byte[bits / 8], 4 << 10), perCase);
      sink += measure(new BcWorker(new byte[bits / 8], 4 << 10), perCase);
    }
    for (int bits : KEY_BITS) {
      for (int chunk : CHUNKS) {
        for (Impl impl : Impl.values()) {
          byte[] key = new byte[bits / 8];
          new Random(bits).nextBytes(key);
          Worker w = impl == Impl.JCE ? new JceWorker(key, chunk) : new BcWorker(key, chunk);
          sink += measure(w, perCase); // warm-up: same work, result dropped
          long start = System.nanoTime();
          long bytes = 0;
          long deadline = start + perCase.toNanos();
          while (System.nanoTime() < deadline) {
            sink += w.roundTrip();
            bytes += chunk;
          }
          double secs = (System.nanoTime() - start) / 1e9;
          out.printf("AES-%d-CTR %-4s chunk=%-8s %10.1f MB/s%n", bits, impl.label,
              chunk >= 1 << 20 ? (chunk >> 20) + "MiB" : (chunk >> 10) + "KiB", bytes / secs / 1e6);
        }
      }
    }
    // Printing the sink keeps the JIT from discarding the work.
    out.printf("(checksum %d)%n", sink);
  }

  /** {@code java ... CryptoBench [millisPerCase]}. */
  public static void main(String[] args) {
    run(System.out, Duration.ofMillis(args.length > 0 ? Long.parseLong(args[0]) : 1000));
  }

  private static long measure(Worker w, Duration d) {
    long sink = 0;
    long deadline = System.nanoTime() + d.toNanos();
    while (System.nanoTime() < deadline) {
      sink += w.roundTrip();
    }
    return sink;
  }

  private enum Impl {
    JCE("jce"), BC("bc");

    final String label;

    Impl(String label) {
      this.label = label;
    }
  }

  /** Encrypts then decrypts one chunk at an advancing offset; returns a byte to sink. */
  private abstract static class Worker {
    final byte[] plain;
    final byte[] cipher;
    final byte[] back;
    final byte[] iv = new byte[16];
    long offset;

    Worker(int chunk) {
      plain = new byte[chunk];
      cipher = new byte[chunk];
      back = new byte[chunk];
      new Random(chunk).nextBytes(plain);
    }

    abstract void crypt(byte[] in, byte[] out);

    final long roundTrip() {
      long block = offset / 16;
      Arrays.fill(iv, 0, 8, (byte) 0);
      for (int i = 0; i < 8; i++) {
        iv[15 - i] = (byte) (block >>> (8 * i));
      }
      crypt(plain, cipher);
      crypt(cipher, back);
      offset += plain.length;
      return back[plain.length - 1];
    }
  }

  private static final class JceWorker extends Worker {
    private final Cipher c;
    private final SecretKeySpec key;

    JceWorker(byte[] key, int chunk) {
      super(chunk);
      this.key = new SecretKeySpec(key, "AES");
      try {
        c = Cipher.getInstance("AES/CTR/NoPadding");
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    void crypt(byte[] in, byte[] out) {
      try {
        c.init(Cipher.ENCRYPT_MODE, key, new IvParameterSpec(iv));
        c.doFinal(in, 0, in.length, out, 0);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static final class BcWorker extends Worker {
    private final CTRModeCipher c = SICBlockCipher.newInstance(AESEngine.newInstance());
    private final KeyParameter key;

    BcWorker(byte[] key, int chunk) {
      super(chunk);
      this.key = new KeyParameter(key);
    }

    @Override
    void crypt(byte[] in, byte[] out) {
      c.init(true, new ParametersWithIV(key, iv));
      c.processBytes(in, 0, in.length, out, 0);
    }
  }
}
