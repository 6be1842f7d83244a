package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.row.ColumnarRows;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;

/**
 * One row returned by a scan, in the scan's projection. Getters take a column name or its
 * position in the projection and check the column's type: calling the getter of another type is
 * an INVALID_ARGUMENT error naming the column, as is a primitive getter on a null value (check
 * {@link #isNull} first). Immutable.
 *
 * <p>A row is a view of its page, which holds its values column by column: the primitive getters
 * read them without creating an object, and an object value (a string, a decimal, ...) is made
 * when asked for (docs/performance.md, "Scans").
 */
public final class RowResult {
  private final Schema schema;
  private final ColumnarRows page;
  private final int row;

  RowResult(ColumnarRows page, int row) {
    this.schema = page.projection();
    this.page = page;
    this.row = row;
  }

  /** @return the projection's columns */
  public Schema getSchema() {
    return schema;
  }

  /**
   * @param column a column name
   * @return its position in the projection
   * @throws NyalaException INVALID_ARGUMENT if the scan did not project the column
   */
  public int getColumnIndex(String column) {
    if (!schema.hasColumn(column)) {
      throw NyalaException.invalidArgument("column '%s' is not in the scan's projection %s",
          column, schema);
    }
    return schema.columnIndex(column);
  }

  /**
   * @param column a column name
   * @return whether its value is null
   */
  public boolean isNull(String column) {
    return isNull(getColumnIndex(column));
  }

  /**
   * @param index a position in the projection
   * @return whether its value is null
   */
  public boolean isNull(int index) {
    checkIndex(index);
    return page.isNull(index, row);
  }

  /**
   * @param column an INT64 or UNIXTIME_MICROS column
   * @return its value
   */
  public long getLong(String column) {
    return getLong(getColumnIndex(column));
  }

  /**
   * @param index position of an INT64 or UNIXTIME_MICROS column
   * @return its value
   */
  public long getLong(int index) {
    return bits(index, Type.INT64, Type.UNIXTIME_MICROS);
  }

  /**
   * @param column an INT32 column
   * @return its value
   */
  public int getInt(String column) {
    return getInt(getColumnIndex(column));
  }

  /**
   * @param index position of an INT32 column
   * @return its value
   */
  public int getInt(int index) {
    return (int) bits(index, Type.INT32, null);
  }

  /**
   * @param column an INT16 column
   * @return its value
   */
  public short getShort(String column) {
    return getShort(getColumnIndex(column));
  }

  /**
   * @param index position of an INT16 column
   * @return its value
   */
  public short getShort(int index) {
    return (short) bits(index, Type.INT16, null);
  }

  /**
   * @param column an INT8 column
   * @return its value
   */
  public byte getByte(String column) {
    return getByte(getColumnIndex(column));
  }

  /**
   * @param index position of an INT8 column
   * @return its value
   */
  public byte getByte(int index) {
    return (byte) bits(index, Type.INT8, null);
  }

  /**
   * @param column a BOOL column
   * @return its value
   */
  public boolean getBoolean(String column) {
    return getBoolean(getColumnIndex(column));
  }

  /**
   * @param index position of a BOOL column
   * @return its value
   */
  public boolean getBoolean(int index) {
    return bits(index, Type.BOOL, null) != 0;
  }

  /**
   * @param column a FLOAT column
   * @return its value
   */
  public float getFloat(String column) {
    return getFloat(getColumnIndex(column));
  }

  /**
   * @param index position of a FLOAT column
   * @return its value
   */
  public float getFloat(int index) {
    return Float.intBitsToFloat((int) bits(index, Type.FLOAT, null));
  }

  /**
   * @param column a DOUBLE column
   * @return its value
   */
  public double getDouble(String column) {
    return getDouble(getColumnIndex(column));
  }

  /**
   * @param index position of a DOUBLE column
   * @return its value
   */
  public double getDouble(int index) {
    return Double.longBitsToDouble(bits(index, Type.DOUBLE, null));
  }

  /**
   * @param column a UNIXTIME_MICROS column
   * @return microseconds since the epoch
   */
  public long getTimestampMicros(String column) {
    return getTimestampMicros(getColumnIndex(column));
  }

  /**
   * @param index position of a UNIXTIME_MICROS column
   * @return microseconds since the epoch
   */
  public long getTimestampMicros(int index) {
    return bits(index, Type.UNIXTIME_MICROS, null);
  }

  /**
   * @param column a STRING column
   * @return its value, or null
   */
  public String getString(String column) {
    return getString(getColumnIndex(column));
  }

  /**
   * @param index position of a STRING column
   * @return its value, or null
   */
  public String getString(int index) {
    return (String) object(index, Type.STRING);
  }

  /**
   * @param column a BINARY column
   * @return a copy of its value, or null
   */
  public byte[] getBinary(String column) {
    return getBinary(getColumnIndex(column));
  }

  /**
   * @param index position of a BINARY column
   * @return a copy of its value, or null
   */
  public byte[] getBinary(int index) {
    return (byte[]) object(index, Type.BINARY);
  }

  /**
   * @param column a DECIMAL column
   * @return its value at the column's scale, or null
   */
  public BigDecimal getDecimal(String column) {
    return getDecimal(getColumnIndex(column));
  }

  /**
   * @param index position of a DECIMAL column
   * @return its value at the column's scale, or null
   */
  public BigDecimal getDecimal(int index) {
    return (BigDecimal) object(index, Type.DECIMAL);
  }

  /**
   * @param column a DATE column
   * @return its value, or null
   */
  public LocalDate getDate(String column) {
    return getDate(getColumnIndex(column));
  }

  /**
   * @param index position of a DATE column
   * @return its value, or null
   */
  public LocalDate getDate(int index) {
    return (LocalDate) object(index, Type.DATE);
  }

  /**
   * @param column a VARCHAR column
   * @return its value, or null
   */
  public String getVarchar(String column) {
    return getVarchar(getColumnIndex(column));
  }

  /**
   * @param index position of a VARCHAR column
   * @return its value, or null
   */
  public String getVarchar(int index) {
    return (String) object(index, Type.VARCHAR);
  }

  /**
   * @param column a TIMESTAMP column
   * @return its value (whole microseconds, UTC), or null
   */
  public Instant getTimestamp(String column) {
    return getTimestamp(getColumnIndex(column));
  }

  /**
   * @param index position of a TIMESTAMP column
   * @return its value (whole microseconds, UTC), or null
   */
  public Instant getTimestamp(int index) {
    return (Instant) object(index, Type.TIMESTAMP);
  }

  /**
   * @param column any column
   * @return its value as its type's Java class ({@link Type#javaClass()}), or null
   */
  public Object getObject(String column) {
    return getObject(getColumnIndex(column));
  }

  /**
   * @param index position of any column
   * @return its value as its type's Java class, or null
   */
  public Object getObject(int index) {
    checkIndex(index);
    return page.value(index, row);
  }

  /** The bits of a non-null value of type {@code a} or {@code b} (null: only {@code a}). */
  private long bits(int index, Type a, Type b) {
    checkType(index, a, b);
    if (page.isNull(index, row)) {
      throw NyalaException.invalidArgument("column '%s' is null; check isNull() first",
          schema.column(index).name());
    }
    return page.bits(index, row);
  }

  /** A value of type {@code t} as an object, or null. */
  private Object object(int index, Type t) {
    checkType(index, t, null);
    return page.value(index, row);
  }

  private void checkType(int index, Type a, Type b) {
    checkIndex(index);
    ColumnSchema c = schema.column(index);
    if (c.type() != a && c.type() != b) {
      throw NyalaException.invalidArgument("column '%s' is of type %s, not %s", c.name(),
          c.type(), a);
    }
  }

  private void checkIndex(int index) {
    if (index < 0 || index >= schema.columnCount()) {
      throw NyalaException.invalidArgument("column index %d out of range: the projection has %d "
          + "columns", index, schema.columnCount());
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < schema.columnCount(); i++) {
      if (i > 0) {
        sb.append(", ");
      }
      Object v = page.value(i, row);
      sb.append(schema.column(i).name()).append('=')
          .append(v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v));
    }
    return sb.append(')').toString();
  }
}
