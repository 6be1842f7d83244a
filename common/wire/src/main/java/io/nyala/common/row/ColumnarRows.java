package io.nyala.common.row;

import io.nyala.common.InternalApi;
import io.nyala.common.proto.RowBlockPB;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Timestamps;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;

/**
 * A {@link RowBlock} decoded column by column without an object per row or per value: each
 * column is one {@code long[]} holding a fixed-width value's bits (integers, BOOL as 0/1, FLOAT
 * and DOUBLE as their raw bits, DATE as its epoch day, timestamps as microseconds), or where a
 * variable-width value (STRING, VARCHAR, BINARY) or a DECIMAL lies in the block's bytes; those
 * become objects only when asked for ({@link #value}). A scan's client reads rows through it
 * (docs/performance.md, "Scans"). The block's bytes are checked as {@link RowBlock#decode}
 * checks them: a block that does not hold what it declares is CORRUPTION. Immutable.
 */
@InternalApi
public final class ColumnarRows {
  private final Schema projection;
  private final Type[] types;
  private final byte[] bytes;
  private final int numRows;
  /** Per column, per row: the value's bits, or (offset << 32 | length) of its bytes. */
  private final long[][] values;
  /** Per column, per row, whether the value is null; null for a column without nulls. */
  private final boolean[][] nulls;

  private ColumnarRows(Schema projection, Type[] types, byte[] bytes, int numRows,
      long[][] values, boolean[][] nulls) {
    this.projection = projection;
    this.types = types;
    this.bytes = bytes;
    this.numRows = numRows;
    this.values = values;
    this.nulls = nulls;
  }

  /**
   * Decodes a block.
   *
   * @param projection the rows' shape
   * @param pb the block
   * @return its rows
   */
  public static ColumnarRows decode(Schema projection, RowBlockPB pb) {
    byte[] bytes = pb.getRows().toByteArray();
    ByteReader r = new ByteReader(bytes, "row block");
    int n = projection.columnCount();
    int bitmapBytes = (n + 7) / 8;
    int rows = pb.getNumRows();
    r.checkCount("row", rows, bitmapBytes);
    Type[] types = new Type[n];
    long[][] values = new long[n][rows];
    boolean[][] nulls = new boolean[n][];
    for (int c = 0; c < n; c++) {
      types[c] = projection.column(c).type();
    }
    for (int row = 0; row < rows; row++) {
      int bitmapAt = r.position();
      r.skip(bitmapBytes);
      for (int c = 0; c < n; c++) {
        if ((bytes[bitmapAt + c / 8] & (1 << (c & 7))) != 0) {
          if (nulls[c] == null) {
            nulls[c] = new boolean[rows];
          }
          nulls[c][row] = true;
        } else {
          values[c][row] = read(r, types[c]);
        }
      }
    }
    return new ColumnarRows(projection, types, bytes, rows, values, nulls);
  }

  /** A value's bits, or where its bytes are for the types read lazily. */
  private static long read(ByteReader r, Type t) {
    return switch (t) {
      case INT8, BOOL -> r.readByte();
      case INT16 -> r.readShort();
      case INT32, FLOAT, DATE -> r.readInt();
      case INT64, UNIXTIME_MICROS, DOUBLE, TIMESTAMP -> r.readLong();
      case STRING, VARCHAR, BINARY -> {
        int len = r.readInt();
        int at = r.position();
        r.skip(len);
        yield ((long) at << 32) | (len & 0xffffffffL);
      }
      case DECIMAL -> {
        int at = r.position();
        r.skip(17);
        yield ((long) at << 32) | 17;
      }
    };
  }

  /** @return the rows' shape */
  public Schema projection() {
    return projection;
  }

  /** @return the number of rows */
  public int numRows() {
    return numRows;
  }

  /**
   * @param col a position in the projection
   * @param row a row
   * @return whether the value is null
   */
  public boolean isNull(int col, int row) {
    boolean[] ns = nulls[col];
    return ns != null && ns[row];
  }

  /**
   * The bits of a non-null fixed-width value: an integer sign-extended (INT8 as stored, a BOOL
   * 0 or 1), a FLOAT's or DOUBLE's raw bits, a DATE's epoch day, a timestamp's microseconds.
   *
   * @param col a position in the projection
   * @param row a row
   * @return the bits
   */
  public long bits(int col, int row) {
    long v = values[col][row];
    return types[col] == Type.INT8 ? (byte) v : v;
  }

  /**
   * A value as {@link ValueCodec#read} returns it; a new object (a new array for BINARY) each
   * call.
   *
   * @param col a position in the projection
   * @param row a row
   * @return the value, or null
   */
  public Object value(int col, int row) {
    if (isNull(col, row)) {
      return null;
    }
    long v = values[col][row];
    int at = (int) (v >>> 32);
    int len = (int) v;
    return switch (types[col]) {
      case INT8 -> (byte) v;
      case INT16 -> (short) v;
      case INT32 -> (int) v;
      case INT64, UNIXTIME_MICROS -> v;
      case BOOL -> v != 0;
      case FLOAT -> Float.intBitsToFloat((int) v);
      case DOUBLE -> Double.longBitsToDouble(v);
      case STRING, VARCHAR -> new String(bytes, at, len, StandardCharsets.UTF_8);
      case BINARY -> Arrays.copyOfRange(bytes, at, at + len);
      case DECIMAL -> new BigDecimal(new BigInteger(Arrays.copyOfRange(bytes, at + 1, at + 17)),
          bytes[at] & 0xff);
      case DATE -> LocalDate.ofEpochDay((int) v);
      case TIMESTAMP -> Timestamps.fromMicros(v);
    };
  }
}
