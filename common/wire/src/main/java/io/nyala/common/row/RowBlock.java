package io.nyala.common.row;

import io.nyala.common.InternalApi;
import io.nyala.common.proto.RowBlockPB;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * Result rows in a projection: per row a null bitmap then each non-null value in projection
 * order. Rows are plain {@code Object[]} of the projection's width.
 */
@InternalApi
public final class RowBlock {
  private final Schema projection;
  /** The projection's column types, looked up once rather than per value. */
  private final Type[] types;
  private final ByteWriter w;
  private int count;

  /**
   * An empty block.
   *
   * @param projection the rows' shape
   */
  public RowBlock(Schema projection) {
    this(projection, 4096);
  }

  /**
   * An empty block sized for about {@code expectedBytes} of rows.
   *
   * @param projection the rows' shape
   * @param expectedBytes the bytes to allocate at first
   */
  public RowBlock(Schema projection, int expectedBytes) {
    this.projection = projection;
    this.types = new Type[projection.columnCount()];
    for (int i = 0; i < types.length; i++) {
      types[i] = projection.column(i).type();
    }
    this.w = new ByteWriter(expectedBytes);
  }

  /**
   * Appends a row given as values in projection order.
   *
   * @param values the values, null for SQL NULL
   */
  public void add(Object[] values) {
    int n = types.length;
    int bitmapBytes = (n + 7) / 8;
    int at = w.size();
    for (int i = 0; i < bitmapBytes; i++) {
      w.writeByte(0);
    }
    int nullByte = 0;
    for (int i = 0; i < n; i++) {
      Object v = values[i];
      if (v == null) {
        nullByte |= 1 << (i & 7);
      } else {
        ValueCodec.write(w, types[i], v);
      }
      if ((i & 7) == 7 || i == n - 1) {
        w.setByte(at + i / 8, nullByte);
        nullByte = 0;
      }
    }
    count++;
  }

  /** @return the rows added */
  public int count() {
    return count;
  }

  /** @return the encoded size of the rows added */
  public int sizeBytes() {
    return w.size();
  }

  /**
   * The wire form; shares this block's buffer, so add no rows after.
   *
   * @return the rows as a {@code RowBlockPB}
   */
  public RowBlockPB toPb() {
    return RowBlockPB.newBuilder()
        .setRows(com.google.protobuf.UnsafeByteOperations.unsafeWrap(w.array(), 0, w.size()))
        .setNumRows(count)
        .build();
  }

  /**
   * Decodes a block into rows of the projection's width. A block that does not hold what it
   * declares is CORRUPTION (it came from a server, not from this caller); the row count is
   * checked against the bytes present before anything is allocated for it.
   *
   * @param projection the rows' shape
   * @param pb the block
   * @return the rows, each of the projection's width
   */
  public static List<Object[]> decode(Schema projection, RowBlockPB pb) {
    byte[] bytes = pb.getRows().toByteArray();
    ByteReader r = new ByteReader(bytes, "row block");
    int n = projection.columnCount();
    int bitmapBytes = (n + 7) / 8;
    r.checkCount("row", pb.getNumRows(), bitmapBytes);
    List<Object[]> out = new ArrayList<>(pb.getNumRows());
    for (int row = 0; row < pb.getNumRows(); row++) {
      byte[] nullBm = r.readBytes(bitmapBytes);
      Object[] values = new Object[n];
      for (int i = 0; i < n; i++) {
        if ((nullBm[i / 8] & (1 << (i & 7))) == 0) {
          values[i] = ValueCodec.read(r, projection.column(i).type());
        }
      }
      out.add(values);
    }
    return out;
  }
}
