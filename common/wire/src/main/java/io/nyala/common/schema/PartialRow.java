package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.BitSet;

/**
 * A row being built for an operation: some columns set, some null, some untouched. Setters check
 * the column's type and nullability and name the column in their errors.
 */
public final class PartialRow {
  private final Schema schema;
  private final Object[] values;
  private final BitSet set;

  PartialRow(Schema schema) {
    this.schema = schema;
    this.values = new Object[schema.columnCount()];
    this.set = new BitSet(schema.columnCount());
  }

  /**
   * A row over decoded values, unchecked: for the row codecs.
   *
   * @param schema the row's schema
   * @param values the values in schema order, copied
   * @param setBits which columns are present
   * @return the row
   */
  @InternalApi
  public static PartialRow of(Schema schema, Object[] values, BitSet setBits) {
    PartialRow r = new PartialRow(schema);
    System.arraycopy(values, 0, r.values, 0, values.length);
    r.set.or(setBits);
    return r;
  }

  /**
   * The schema the row is built for.
   *
   * @return the schema
   */
  public Schema schema() {
    return schema;
  }

  /**
   * Sets an INT8 column.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addByte(String column, byte v) {
    return put(column, Type.INT8, v);
  }

  /**
   * Sets an INT16 column.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addShort(String column, short v) {
    return put(column, Type.INT16, v);
  }

  /**
   * Sets an INT32 column.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addInt(String column, int v) {
    return put(column, Type.INT32, v);
  }

  /**
   * Sets an INT64 or UNIXTIME_MICROS column.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addLong(String column, long v) {
    int i = schema.columnIndex(column);
    Type t = schema.column(i).type();
    if (t == Type.UNIXTIME_MICROS) {
      return set(i, v);
    }
    return put(column, Type.INT64, v);
  }

  /**
   * Sets a UNIXTIME_MICROS column.
   *
   * @param column the column's name
   * @param micros microseconds since the Unix epoch
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addTimestampMicros(String column, long micros) {
    return put(column, Type.UNIXTIME_MICROS, micros);
  }

  /**
   * Sets a BOOL column.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addBoolean(String column, boolean v) {
    return put(column, Type.BOOL, v);
  }

  /**
   * Sets a FLOAT column.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addFloat(String column, float v) {
    return put(column, Type.FLOAT, v);
  }

  /**
   * Sets a DOUBLE column.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addDouble(String column, double v) {
    return put(column, Type.DOUBLE, v);
  }

  /**
   * Sets a STRING column. A null value sets the column to null.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addString(String column, String v) {
    if (v == null) {
      return setNull(column);
    }
    return put(column, Type.STRING, v);
  }

  /**
   * Sets a BINARY column. The bytes are copied; a null value sets the column to null.
   *
   * @param column the column's name
   * @param v the value
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or of another type
   */
  public PartialRow addBinary(String column, byte[] v) {
    if (v == null) {
      return setNull(column);
    }
    return put(column, Type.BINARY, v.clone());
  }

  /**
   * Sets a DECIMAL column; a value with fewer digits after the point is padded with zeros.
   *
   * @param column the column's name
   * @param v the value, or null to set the column to null
   * @return this row
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the column and the value if
   *     it is of another type, or the value needs rounding or has too many digits
   */
  public PartialRow addDecimal(String column, BigDecimal v) {
    return v == null ? setNull(column) : put(column, Type.DECIMAL, v);
  }

  /**
   * Sets a DATE column (0001-01-01 to 9999-12-31).
   *
   * @param column the column's name
   * @param v the date, or null to set the column to null
   * @return this row
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the column if it does not fit
   */
  public PartialRow addDate(String column, LocalDate v) {
    return v == null ? setNull(column) : put(column, Type.DATE, v);
  }

  /**
   * Sets a VARCHAR column; a value longer than the column's length is rejected, not truncated.
   *
   * @param column the column's name
   * @param v the value, or null to set the column to null
   * @return this row
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the column if it does not fit
   */
  public PartialRow addVarchar(String column, String v) {
    return v == null ? setNull(column) : put(column, Type.VARCHAR, v);
  }

  /**
   * Sets a TIMESTAMP column, in whole microseconds.
   *
   * @param column the column's name
   * @param v the instant, or null to set the column to null
   * @return this row
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the column if it does not fit
   */
  public PartialRow addTimestamp(String column, Instant v) {
    return v == null ? setNull(column) : put(column, Type.TIMESTAMP, v);
  }

  /**
   * Sets any column from a Java value of its type (integers are range-checked and narrowed).
   *
   * @param column the column's name
   * @param v the value, or null to set the column to null
   * @return this row
   * @throws io.nyala.common.NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it
   *     is absent or the value does not fit
   */
  public PartialRow addObject(String column, Object v) {
    int i = schema.columnIndex(column);
    if (v == null) {
      return setNull(column);
    }
    return set(i, schema.column(i).checkValue(v));
  }

  /**
   * Sets a nullable column to null.
   *
   * @param column the column's name
   * @return this row
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the column if it is a key
   *     column or not nullable
   */
  public PartialRow setNull(String column) {
    int i = schema.columnIndex(column);
    ColumnSchema c = schema.column(i);
    if (!c.nullable()) {
      throw NyalaException.invalidArgument(
          "column '%s' is %s and cannot be set to null", column,
          c.key() ? "a key column" : "not nullable");
    }
    values[i] = null;
    set.set(i);
    return this;
  }

  private PartialRow put(String column, Type given, Object v) {
    int i = schema.columnIndex(column);
    ColumnSchema c = schema.column(i);
    if (c.type() != given) {
      throw NyalaException.invalidArgument(
          "column '%s' is of type %s, not %s", column, c.type(), given);
    }
    return set(i, c.checkValue(v));
  }

  private PartialRow set(int i, Object v) {
    values[i] = v;
    set.set(i);
    return this;
  }

  /**
   * Whether the column at a position was set (to a value or to null).
   *
   * @param index the column's position in the schema
   * @return true if set
   */
  public boolean isSet(int index) {
    return set.get(index);
  }

  /**
   * Whether a column was set (to a value or to null).
   *
   * @param column the column's name
   * @return true if set
   */
  public boolean isSet(String column) {
    return set.get(schema.columnIndex(column));
  }

  /**
   * Whether the column at a position was set to null.
   *
   * @param index the column's position in the schema
   * @return true if set and null
   */
  public boolean isNull(int index) {
    return set.get(index) && values[index] == null;
  }

  /**
   * The value at a position.
   *
   * @param index the column's position in the schema
   * @return the value, or null if unset or null
   */
  public Object get(int index) {
    return values[index];
  }

  /**
   * The value of a column.
   *
   * @param column the column's name
   * @return the value, or null if unset or null
   */
  public Object get(String column) {
    return values[schema.columnIndex(column)];
  }

  /**
   * The values array, shared: callers must not modify it. For the row codecs.
   *
   * @return the values in schema order, null where unset or null
   */
  @InternalApi
  public Object[] valuesUnsafe() {
    return values;
  }

  /**
   * Which columns were set.
   *
   * @return a copy: bit {@code i} for the column at position {@code i}
   */
  public BitSet setBits() {
    return (BitSet) set.clone();
  }

  /**
   * Checks that every key column is set to a value.
   *
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the first key column unset
   */
  public void checkKeySet() {
    for (int i = 0; i < schema.keyColumnCount(); i++) {
      if (!set.get(i) || values[i] == null) {
        throw NyalaException.invalidArgument(
            "row is missing key column '%s'", schema.column(i).name());
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(");
    boolean first = true;
    for (int i = 0; i < values.length; i++) {
      if (!set.get(i)) {
        continue;
      }
      if (!first) {
        sb.append(", ");
      }
      first = false;
      Object v = values[i];
      sb.append(schema.column(i).name()).append('=')
          .append(v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v));
    }
    return sb.append(')').toString();
  }
}
