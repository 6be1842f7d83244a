package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import java.util.List;

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

  public static BloomFilter of(List<byte[]> keys) {
    long nbits = Math.max(64, (long) keys.size() * BITS_PER_KEY);
    BloomFilter f = new BloomFilter(new long[Math.toIntExact((nbits + 63) / 64)], PROBES);
    for (byte[] k : keys) {
      f.add(k);
    }
    return f;
  }

  private void add(byte[] key) {
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
    long[] bits = new long[r.readInt()];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = r.readLong();
    }
    return new BloomFilter(bits, probes);
  }
}
