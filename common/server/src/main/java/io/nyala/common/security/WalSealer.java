package io.nyala.common.security;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals WAL payloads of one tablet in one Raft term with AES-GCM.
 *
 * <p>Key: HKDF-SHA256 of the tablet key with info {@code "nyala-wal-v1" || term (8 bytes BE)};
 * each term thus has its own key. Nonce (96 bits): 4 zero bytes + the sealer's counter (8 bytes
 * BE), starting at 0. Sealed form: a clear 17-byte header {version (1 byte) = 1, term (8 bytes
 * BE), counter (8 bytes BE)} that is also the GCM additional data, then ciphertext and the
 * 16-byte tag. Every replica stores these bytes as they are and opens them on apply.
 *
 * <p>Why (key, nonce) never repeats: Raft elects at most one leader per term and a node never
 * leads the same term twice (it must win a new election, hence a new term, after a restart), so
 * exactly one sealer exists per (tablet, term); its counter only goes up, and it refuses to
 * seal past 2^32 messages so no key nears GCM's message limit. Callers must create one sealer
 * per term they lead and never a second for the same term. Thread-safe.
 */
public final class WalSealer {
  /** Format version in byte 0 of a sealed payload. */
  public static final byte VERSION = 1;
  /** Bytes of the clear header. */
  public static final int HEADER_BYTES = 17;
  /** Bytes of the GCM tag appended to the ciphertext. */
  public static final int TAG_BYTES = 16;
  /** Messages one sealer may seal. */
  public static final long MAX_MESSAGES = 1L << 32;

  private static final byte[] INFO_PREFIX = "nyala-wal-v1".getBytes(StandardCharsets.US_ASCII);
  private static final ThreadLocal<Cipher> GCM = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("JDK lacks AES/GCM", e);
    }
  });

  /** The clear header of a sealed payload. */
  public record Header(int version, long term, long counter) {}

  private final String tabletId;
  private final KeyMaterial tabletKey;
  private final long term;
  private final SecretKeySpec termKey;
  /** Next nonce counter; incremented atomically so concurrent seals never share one. */
  private final AtomicLong counter = new AtomicLong();

  /** A sealer for {@code tabletId}'s WAL in {@code term}; the term key is derived once. */
  public WalSealer(String tabletId, KeyMaterial tabletKey, long term) {
    this.tabletId = tabletId;
    this.tabletKey = tabletKey;
    this.term = term;
    this.termKey = termKey(tabletKey, term).toAesKey();
  }

  /** The AES key of {@code term} (package-private for tests). */
  static KeyMaterial termKey(KeyMaterial tabletKey, long term) {
    byte[] info = ByteBuffer.allocate(INFO_PREFIX.length + 8).put(INFO_PREFIX).putLong(term)
        .array();
    return Hkdf.deriveKey(tabletKey, null, info, tabletKey.bits());
  }

  public long term() {
    return term;
  }

  /** Messages sealed so far (= the next counter). */
  public long sealedCount() {
    return Math.min(counter.get(), MAX_MESSAGES);
  }

  /** Seals {@code payload}: header || ciphertext || tag. */
  public byte[] seal(byte[] payload) {
    long n = counter.getAndIncrement();
    if (n >= MAX_MESSAGES) {
      throw new NyalaException(StatusCode.ILLEGAL_STATE, "tablet " + tabletId + " term " + term
          + ": WAL sealer used up its " + MAX_MESSAGES + " nonces; a new term is required");
    }
    byte[] out = new byte[HEADER_BYTES + payload.length + TAG_BYTES];
    ByteBuffer.wrap(out).put(VERSION).putLong(term).putLong(n);
    try {
      Cipher c = GCM.get();
      c.init(Cipher.ENCRYPT_MODE, termKey, new GCMParameterSpec(TAG_BYTES * 8, nonce(n)));
      c.updateAAD(out, 0, HEADER_BYTES);
      c.doFinal(payload, 0, payload.length, out, HEADER_BYTES);
      return out;
    } catch (GeneralSecurityException e) {
      throw new NyalaException(StatusCode.RUNTIME_ERROR,
          "tablet " + tabletId + ": cannot seal WAL payload: " + e, e);
    }
  }

  /** Opens a payload of this tablet, of this sealer's term or any other. */
  public byte[] open(byte[] sealed) {
    Header h = header(tabletId, sealed);
    SecretKeySpec key = h.term() == term ? termKey : termKey(tabletKey, h.term()).toAesKey();
    return open(tabletId, key, h, sealed);
  }

  /** Opens a payload of {@code tabletId} given only the tablet key (replicas, recovery). */
  public static byte[] open(String tabletId, KeyMaterial tabletKey, byte[] sealed) {
    Header h = header(tabletId, sealed);
    return open(tabletId, termKey(tabletKey, h.term()).toAesKey(), h, sealed);
  }

  /** Parses the clear header; CORRUPTION naming the tablet if it is short or of unknown version. */
  public static Header header(String tabletId, byte[] sealed) {
    if (sealed.length < HEADER_BYTES + TAG_BYTES) {
      throw NyalaException.corruption("tablet %s: sealed WAL payload too short (%d bytes, need at "
          + "least %d)", tabletId, sealed.length, HEADER_BYTES + TAG_BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(sealed);
    int version = b.get() & 0xff;
    if (version != VERSION) {
      throw NyalaException.corruption("tablet %s: sealed WAL payload has version %d, expected %d",
          tabletId, version, VERSION);
    }
    return new Header(version, b.getLong(), b.getLong());
  }

  private static byte[] open(String tabletId, SecretKeySpec key, Header h, byte[] sealed) {
    try {
      Cipher c = GCM.get();
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, nonce(h.counter())));
      c.updateAAD(sealed, 0, HEADER_BYTES);
      return c.doFinal(sealed, HEADER_BYTES, sealed.length - HEADER_BYTES);
    } catch (AEADBadTagException e) {
      throw new NyalaException(StatusCode.CORRUPTION, "tablet " + tabletId + ": WAL payload of "
          + "term " + h.term() + " counter " + h.counter() + " failed authentication (wrong "
          + "tablet key, or the payload was modified)", e);
    } catch (GeneralSecurityException e) {
      throw new NyalaException(StatusCode.CORRUPTION,
          "tablet " + tabletId + ": cannot open WAL payload: " + e, e);
    }
  }

  private static byte[] nonce(long counter) {
    return ByteBuffer.allocate(12).putInt(0).putLong(counter).array();
  }

  @Override
  public String toString() {
    return "WalSealer[tablet " + tabletId + ", term " + term + ", sealed " + sealedCount() + "]";
  }
}
