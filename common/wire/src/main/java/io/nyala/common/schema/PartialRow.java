package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
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

  /** A row over decoded values; {@code setBits} says which columns are present. */
  @InternalApi
  public static PartialRow of(Schema schema, Object[] values, BitSet setBits) {
    PartialRow r = new PartialRow(schema);
    System.arraycopy(values, 0, r.values, 0, values.length);
    r.set.or(setBits);
    return r;
  }

  public Schema schema() {
    return schema;
  }

  public PartialRow addByte(String column, byte v) {
    return put(column, Type.INT8, v);
  }

  public PartialRow addShort(String column, short v) {
    return put(column, Type.INT16, v);
  }

  public PartialRow addInt(String column, int v) {
    return put(column, Type.INT32, v);
  }

  public PartialRow addLong(String column, long v) {
    int i = schema.columnIndex(column);
    Type t = schema.column(i).type();
    if (t == Type.UNIXTIME_MICROS) {
      return set(i, v);
    }
    return put(column, Type.INT64, v);
  }

  /** Sets a UNIXTIME_MICROS column. */
  public PartialRow addTimestampMicros(String column, long micros) {
    return put(column, Type.UNIXTIME_MICROS, micros);
  }

  public PartialRow addBoolean(String column, boolean v) {
    return put(column, Type.BOOL, v);
  }

  public PartialRow addFloat(String column, float v) {
    return put(column, Type.FLOAT, v);
  }

  public PartialRow addDouble(String column, double v) {
    return put(column, Type.DOUBLE, v);
  }

  public PartialRow addString(String column, String v) {
    if (v == null) {
      return setNull(column);
    }
    return put(column, Type.STRING, v);
  }

  public PartialRow addBinary(String column, byte[] v) {
    if (v == null) {
      return setNull(column);
    }
    return put(column, Type.BINARY, v.clone());
  }

  /** Sets any column from a Java value of its type (integers are range-checked and narrowed). */
  public PartialRow addObject(String column, Object v) {
    int i = schema.columnIndex(column);
    if (v == null) {
      return setNull(column);
    }
    return set(i, schema.column(i).type().coerce(column, v));
  }

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
    Type t = schema.column(i).type();
    if (t != given) {
      throw NyalaException.invalidArgument(
          "column '%s' is of type %s, not %s", column, t, given);
    }
    return set(i, v);
  }

  private PartialRow set(int i, Object v) {
    values[i] = v;
    set.set(i);
    return this;
  }

  public boolean isSet(int index) {
    return set.get(index);
  }

  public boolean isSet(String column) {
    return set.get(schema.columnIndex(column));
  }

  public boolean isNull(int index) {
    return set.get(index) && values[index] == null;
  }

  /** The value at a position (null if unset or null). */
  public Object get(int index) {
    return values[index];
  }

  public Object get(String column) {
    return values[schema.columnIndex(column)];
  }

  /** The values array, shared: callers must not modify it. */
  @InternalApi
  public Object[] valuesUnsafe() {
    return values;
  }

  public BitSet setBits() {
    return (BitSet) set.clone();
  }

  /** Fails naming the first key column that is not set. */
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
