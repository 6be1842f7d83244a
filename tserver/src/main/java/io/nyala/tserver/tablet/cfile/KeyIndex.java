package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import java.util.Arrays;
import java.util.List;

/**
 * The sorted, distinct encoded keys of a rowset layer and, for each, the ordinal of its first row
 * version in the column blocks (a key's versions are contiguous, newest first). Loaded whole so
 * that a seek is a binary search in memory.
 */
public final class KeyIndex {
  private final byte[][] keys;
  /** {@code first[i]}..{@code first[i+1]} are key i's version ordinals; one extra sentinel. */
  private final int[] first;

  public KeyIndex(byte[][] keys, int[] first) {
    this.keys = keys;
    this.first = first;
  }

  public int size() {
    return keys.length;
  }

  public byte[] key(int i) {
    return keys[i];
  }

  public int firstVersion(int i) {
    return first[i];
  }

  public int versionCount(int i) {
    return first[i + 1] - first[i];
  }

  /** The position of {@code key}, or -1. */
  public int find(byte[] key) {
    int i = Arrays.binarySearch(keys, key, Arrays::compareUnsigned);
    return i >= 0 ? i : -1;
  }

  /** The first position whose key is ≥ (or > when not inclusive) {@code key}. */
  public int seek(byte[] key, boolean inclusive) {
    int i = Arrays.binarySearch(keys, key, Arrays::compareUnsigned);
    if (i >= 0) {
      return inclusive ? i : i + 1;
    }
    return -i - 1;
  }

  /** Framed bytes of the index for keys and their version counts. */
  public static byte[] encode(List<byte[]> keys, List<Integer> versionCounts) {
    ByteWriter w = new ByteWriter(keys.size() * 16 + 16);
    w.writeInt(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      w.writeLengthPrefixed(keys.get(i));
      w.writeInt(versionCounts.get(i));
    }
    return Checksums.frame(w.array(), w.size());
  }

  public static KeyIndex decode(byte[] framed, String block) {
    int len = Checksums.check(framed, block, 0, "key index");
    ByteReader r = new ByteReader(framed, 4, len, "key index of block " + block);
    int n = r.readInt();
    byte[][] keys = new byte[n][];
    int[] first = new int[n + 1];
    for (int i = 0; i < n; i++) {
      keys[i] = r.readLengthPrefixed();
      first[i + 1] = first[i] + r.readInt();
    }
    return new KeyIndex(keys, first);
  }
}
