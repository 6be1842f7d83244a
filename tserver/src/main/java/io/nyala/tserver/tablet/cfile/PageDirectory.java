package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import java.util.Arrays;

/**
 * Where the pages of one column block start: the first row ordinal of each page and its byte
 * offset; {@code blockSize} closes the last page. Kept in the rowset's meta block.
 */
public record PageDirectory(int[] firstOrdinals, long[] offsets, long blockSize) {

  /** The page holding {@code ordinal}. */
  public int pageOf(int ordinal) {
    int i = Arrays.binarySearch(firstOrdinals, ordinal);
    return i >= 0 ? i : -i - 2;
  }

  public int pageCount() {
    return offsets.length;
  }

  public long pageLength(int page) {
    long end = page + 1 < offsets.length ? offsets[page + 1] : blockSize;
    return end - offsets[page];
  }

  public void writeTo(ByteWriter w) {
    w.writeInt(offsets.length);
    w.writeLong(blockSize);
    for (int i = 0; i < offsets.length; i++) {
      w.writeInt(firstOrdinals[i]);
      w.writeLong(offsets[i]);
    }
  }

  public static PageDirectory readFrom(ByteReader r) {
    int n = r.readInt();
    long size = r.readLong();
    int[] first = new int[n];
    long[] offs = new long[n];
    for (int i = 0; i < n; i++) {
      first[i] = r.readInt();
      offs[i] = r.readLong();
    }
    return new PageDirectory(first, offs, size);
  }
}
