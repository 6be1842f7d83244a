package io.nyala.tserver.tablet.cfile;

import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockManager.WritableBlock;
import java.util.Arrays;

/**
 * Streams one column's values into its block as framed pages of at most {@link #PAGE_ROWS}
 * values: only the page being filled is held in memory, each full page is encoded and appended
 * to the block at once. {@link #finish()} writes the last page, finalizes the block and returns
 * the page directory a reader needs.
 */
public final class ColumnWriter {
  public static final int PAGE_ROWS = 256;

  private final Type type;
  private final boolean nullable;
  private final WritableBlock block;
  private final Object[] page = new Object[PAGE_ROWS];
  private int filled;
  private int written;
  private long bytes;
  /** Page directory entries, grown as pages are written (a few bytes per page). */
  private int[] firstOrdinals = new int[8];
  private long[] offsets = new long[8];
  private int pages;

  public ColumnWriter(Type type, boolean nullable, WritableBlock block) {
    this.type = type;
    this.nullable = nullable;
    this.block = block;
  }

  public void add(Object v) {
    page[filled++] = v;
    if (filled == PAGE_ROWS) {
      writePage();
    }
  }

  /** Values added but not yet written to the block (at most one page). */
  public int buffered() {
    return filled;
  }

  private void writePage() {
    byte[] payload = PageCodec.encode(type, nullable, page, 0, filled);
    if (pages == offsets.length) {
      offsets = Arrays.copyOf(offsets, pages * 2);
      firstOrdinals = Arrays.copyOf(firstOrdinals, pages * 2);
    }
    offsets[pages] = bytes;
    firstOrdinals[pages] = written;
    pages++;
    byte[] framed = Checksums.frame(payload, payload.length);
    block.append(framed);
    bytes += framed.length;
    written += filled;
    Arrays.fill(page, 0, filled, null);
    filled = 0;
  }

  /** Writes the last partial page, finalizes the block; the directory of its pages. */
  public PageDirectory finish() {
    if (filled > 0) {
      writePage();
    }
    block.finalizeBlock();
    return new PageDirectory(Arrays.copyOf(firstOrdinals, pages), Arrays.copyOf(offsets, pages),
        bytes);
  }
}
