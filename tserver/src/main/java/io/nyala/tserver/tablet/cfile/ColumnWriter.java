package io.nyala.tserver.tablet.cfile;

import io.nyala.common.row.ByteWriter;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * Buffers one column's values and cuts them into framed pages of at most {@link #PAGE_ROWS}
 * values. The result is the column block's bytes plus the page directory a reader needs.
 */
public final class ColumnWriter {
  static final int PAGE_ROWS = 256;

  private final Type type;
  private final boolean nullable;
  private final List<Object> values = new ArrayList<>();

  public ColumnWriter(Type type, boolean nullable) {
    this.type = type;
    this.nullable = nullable;
  }

  public void add(Object v) {
    values.add(v);
  }

  /** The block bytes and the directory of its pages. */
  public record Output(byte[] block, PageDirectory directory) {}

  public Output finish() {
    Object[] all = values.toArray();
    ByteWriter out = new ByteWriter(all.length * 8 + 64);
    int pages = (all.length + PAGE_ROWS - 1) / PAGE_ROWS;
    long[] offsets = new long[pages];
    int[] first = new int[pages];
    for (int p = 0; p < pages; p++) {
      int from = p * PAGE_ROWS;
      int n = Math.min(PAGE_ROWS, all.length - from);
      byte[] payload = PageCodec.encode(type, nullable, all, from, n);
      offsets[p] = out.size();
      first[p] = from;
      out.writeBytes(Checksums.frame(payload, payload.length));
    }
    return new Output(out.toByteArray(), new PageDirectory(first, offsets, out.size()));
  }
}
