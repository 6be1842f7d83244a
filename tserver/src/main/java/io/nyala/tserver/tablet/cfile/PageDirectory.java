package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import java.util.Arrays;

/**
 * Where the pages of one column block start: the first row ordinal of each page and its byte
 * offset; {@code blockSize} closes the last page. Kept in the rowset's meta block.
 */
public record PageDirectory(int[] firstOrdinals, long[] offsets, long blockSize) {
  /** No page is longer: a page is a buffer read whole. */
  static final long MAX_PAGE_BYTES = Integer.MAX_VALUE - 16;

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
    int n = r.readCount("page", 4 + 8);
    long size = r.readLong();
    int[] first = new int[n];
    long[] offs = new long[n];
    for (int i = 0; i < n; i++) {
      first[i] = r.readInt();
      offs[i] = r.readLong();
      // A page's length sizes the buffer it is read into: pages must lie in order in the block.
      long prev = i == 0 ? 0 : offs[i - 1];
      if (offs[i] < prev || offs[i] > size || (i > 0 && first[i] <= first[i - 1])
          || offs[i] - prev > MAX_PAGE_BYTES) {
        throw r.bad("page %d at offset %d (first row %d) is out of order in a block of %d bytes",
            i, offs[i], first[i], size);
      }
    }
    if (n > 0 && size - offs[n - 1] > MAX_PAGE_BYTES) {
      throw r.bad("last page at offset %d of a block of %d bytes is too long", offs[n - 1], size);
    }
    return new PageDirectory(first, offs, size);
  }
}
