package io.nyala.client;

import io.nyala.common.NyalaException;
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
 */
public final class RowResult {
  private final Schema schema;
  private final Object[] values;

  RowResult(Schema schema, Object[] values) {
    this.schema = schema;
    this.values = values;
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
    return values[index] == null;
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
    return (Long) value(index, true, Type.INT64, Type.UNIXTIME_MICROS);
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
    return (Integer) value(index, true, Type.INT32);
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
    return (Short) value(index, true, Type.INT16);
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
    return (Byte) value(index, true, Type.INT8);
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
    return (Boolean) value(index, true, Type.BOOL);
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
    return (Float) value(index, true, Type.FLOAT);
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
    return (Double) value(index, true, Type.DOUBLE);
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
    return (Long) value(index, true, Type.UNIXTIME_MICROS);
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
    return (String) value(index, false, Type.STRING);
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
    byte[] b = (byte[]) value(index, false, Type.BINARY);
    return b == null ? null : b.clone();
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
    return (BigDecimal) value(index, false, Type.DECIMAL);
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
    return (LocalDate) value(index, false, Type.DATE);
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
    return (String) value(index, false, Type.VARCHAR);
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
    return (Instant) value(index, false, Type.TIMESTAMP);
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
    Object v = values[index];
    return v instanceof byte[] b ? b.clone() : v;
  }

  private Object value(int index, boolean primitive, Type... accepted) {
    checkIndex(index);
    ColumnSchema c = schema.column(index);
    if (!Arrays.asList(accepted).contains(c.type())) {
      throw NyalaException.invalidArgument("column '%s' is of type %s, not %s", c.name(),
          c.type(), accepted[0]);
    }
    Object v = values[index];
    if (v == null && primitive) {
      throw NyalaException.invalidArgument("column '%s' is null; check isNull() first", c.name());
    }
    return v;
  }

  private void checkIndex(int index) {
    if (index < 0 || index >= values.length) {
      throw NyalaException.invalidArgument("column index %d out of range: the projection has %d "
          + "columns", index, values.length);
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      Object v = values[i];
      sb.append(schema.column(i).name()).append('=')
          .append(v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v));
    }
    return sb.append(')').toString();
  }
}
