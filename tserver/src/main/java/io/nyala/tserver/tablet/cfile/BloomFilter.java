package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;

/**
 * A bloom filter over encoded keys (about 10 bits and 7 probes per key, ~1% false positives), so
 * that an INSERT's duplicate check skips most rowsets without touching their key index.
 */
public final class BloomFilter {
  private static final int BITS_PER_KEY = 10;
  private static final int PROBES = 7;
  private final long[] bits;
  private final int probes;

  private BloomFilter(long[] bits, int probes) {
    this.bits = bits;
    this.probes = probes;
  }

  /**
   * An empty filter sized for {@code expectedKeys}, filled with {@link #add} as keys come. More
   * keys than expected only raise the false-positive rate; writers pass an upper bound.
   */
  public static BloomFilter sized(long expectedKeys) {
    long nbits = Math.max(64, expectedKeys * BITS_PER_KEY);
    return new BloomFilter(new long[Math.toIntExact((nbits + 63) / 64)], PROBES);
  }

  public void add(byte[] key) {
    long h = hash(key);
    long m = (long) bits.length * 64;
    for (int i = 0; i < probes; i++) {
      long bit = Math.floorMod((h >>> 32) + i * (h & 0xffffffffL), m);
      bits[(int) (bit >>> 6)] |= 1L << (bit & 63);
    }
  }

  public boolean mightContain(byte[] key) {
    long h = hash(key);
    long m = (long) bits.length * 64;
    for (int i = 0; i < probes; i++) {
      long bit = Math.floorMod((h >>> 32) + i * (h & 0xffffffffL), m);
      if ((bits[(int) (bit >>> 6)] & (1L << (bit & 63))) == 0) {
        return false;
      }
    }
    return true;
  }

  /** FNV-1a then a 64-bit finaliser, so both halves are well mixed for double hashing. */
  private static long hash(byte[] key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }

  public byte[] encode() {
    ByteWriter w = new ByteWriter(bits.length * 8 + 8);
    w.writeInt(probes);
    w.writeInt(bits.length);
    for (long b : bits) {
      w.writeLong(b);
    }
    return Checksums.frame(w.array(), w.size());
  }

  public static BloomFilter decode(byte[] framed, String block) {
    int len = Checksums.check(framed, block, 0, "bloom filter");
    ByteReader r = new ByteReader(framed, 4, len, "bloom filter of block " + block);
    int probes = r.readInt();
    // Probes bound every lookup's loop; an empty bit array would divide by zero.
    if (probes < 1 || probes > 64) {
      throw r.bad("bad probe count %d", probes);
    }
    long[] bits = new long[r.readCount("bloom filter word", 8)];
    if (bits.length == 0) {
      throw r.bad("no bits");
    }
    for (int i = 0; i < bits.length; i++) {
      bits[i] = r.readLong();
    }
    return new BloomFilter(bits, probes);
  }
}
