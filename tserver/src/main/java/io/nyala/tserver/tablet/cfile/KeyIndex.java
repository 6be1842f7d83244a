package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import io.nyala.tserver.fs.BlockManager.WritableBlock;
import java.util.Arrays;
import java.util.zip.CRC32C;

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

  /**
   * Builds the index key by key as a layer is written, holding it encoded (key bytes plus eight
   * per key): the one part of a layer that stays in memory until the layer is finished.
   */
  public static final class Builder {
    private final ByteWriter entries = new ByteWriter(4096);
    private int count;

    public void add(byte[] key, int versionCount) {
      entries.writeLengthPrefixed(key);
      entries.writeInt(versionCount);
      count++;
    }

    public int size() {
      return count;
    }

    /** Appends the framed index ({@link Checksums} frame of count + entries) to {@code b}. */
    public void writeTo(WritableBlock b) {
      byte[] head = new byte[4];
      Checksums.putInt(head, 0, count);
      CRC32C crc = new CRC32C();
      crc.update(head);
      crc.update(entries.array(), 0, entries.size());
      byte[] len = new byte[4];
      Checksums.putInt(len, 0, 4 + entries.size());
      byte[] tail = new byte[4];
      Checksums.putInt(tail, 0, (int) crc.getValue());
      b.append(len);
      b.append(head);
      b.append(entries.array(), 0, entries.size());
      b.append(tail);
    }
  }

  public static KeyIndex decode(byte[] framed, String block) {
    int len = Checksums.check(framed, block, 0, "key index");
    ByteReader r = new ByteReader(framed, 4, len, "key index of block " + block);
    int n = r.readCount("key", 4 + 4);
    byte[][] keys = new byte[n][];
    int[] first = new int[n + 1];
    for (int i = 0; i < n; i++) {
      keys[i] = r.readLengthPrefixed();
      int versions = r.readInt();
      // Every key has a version; a bad count would later size an array from it.
      if (versions < 1 || (long) first[i] + versions > Integer.MAX_VALUE) {
        throw r.bad("key %d has a bad version count %d", i, versions);
      }
      first[i + 1] = first[i] + versions;
    }
    return new KeyIndex(keys, first);
  }
}
