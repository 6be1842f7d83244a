package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.DataTypePB;
import io.nyala.common.proto.ValuePB;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;

/** Column data types and how their Java values are checked, compared and put on the wire. */
public enum Type {
  /** A signed 8-bit integer, as a {@link Byte}. */
  INT8(DataTypePB.INT8, Byte.class, 1),
  /** A signed 16-bit integer, as a {@link Short}. */
  INT16(DataTypePB.INT16, Short.class, 2),
  /** A signed 32-bit integer, as an {@link Integer}. */
  INT32(DataTypePB.INT32, Integer.class, 4),
  /** A signed 64-bit integer, as a {@link Long}. */
  INT64(DataTypePB.INT64, Long.class, 8),
  /** A boolean, as a {@link Boolean}; cannot be a key column. */
  BOOL(DataTypePB.BOOL, Boolean.class, 1),
  /** A 32-bit IEEE 754 float, as a {@link Float}; cannot be a key column. */
  FLOAT(DataTypePB.FLOAT, Float.class, 4),
  /** A 64-bit IEEE 754 double, as a {@link Double}; cannot be a key column. */
  DOUBLE(DataTypePB.DOUBLE, Double.class, 8),
  /** UTF-8 text, as a {@link String}. */
  STRING(DataTypePB.STRING, String.class, -1),
  /** Bytes, as a {@code byte[]}; compared unsigned lexicographically. */
  BINARY(DataTypePB.BINARY, byte[].class, -1),
  /** Microseconds since the Unix epoch, as a long. */
  UNIXTIME_MICROS(DataTypePB.UNIXTIME_MICROS, Long.class, 8),
  /**
   * A fixed-point number, as a {@link BigDecimal} at the column's scale; the column's
   * {@link ColumnTypeAttributes} give precision (1-38) and scale. Stored as its scale (1 byte)
   * and its unscaled value as a 128-bit two's-complement integer.
   */
  DECIMAL(DataTypePB.DECIMAL, BigDecimal.class, 17),
  /** A calendar date from 0001-01-01 to 9999-12-31, as a {@link LocalDate}; int32 days. */
  DATE(DataTypePB.DATE, LocalDate.class, 4),
  /** UTF-8 text of at most the column's length in characters, as a {@link String}. */
  VARCHAR(DataTypePB.VARCHAR, String.class, -1),
  /** An instant in UTC with microsecond precision, as an {@link Instant}; int64 micros. */
  TIMESTAMP(DataTypePB.TIMESTAMP, Instant.class, 8);

  /** The earliest DATE value. */
  static final LocalDate MIN_DATE = LocalDate.of(1, 1, 1);
  /** The latest DATE value. */
  static final LocalDate MAX_DATE = LocalDate.of(9999, 12, 31);

  private final DataTypePB pb;
  private final Class<?> javaClass;
  private final int fixedSize;

  Type(DataTypePB pb, Class<?> javaClass, int fixedSize) {
    this.pb = pb;
    this.javaClass = javaClass;
    this.fixedSize = fixedSize;
  }

  /** The wire form. */
  DataTypePB toPb() {
    return pb;
  }

  /**
   * The Java class of this type's values.
   *
   * @return e.g. {@code Integer.class} for INT32
   */
  public Class<?> javaClass() {
    return javaClass;
  }

  /**
   * Encoded width in bytes.
   *
   * @return the width, or -1 for variable-length types
   */
  public int fixedSize() {
    return fixedSize;
  }

  /**
   * Whether a column of this type may be part of the primary key.
   *
   * @return false for BOOL, FLOAT and DOUBLE
   */
  public boolean canBeKey() {
    return this != BOOL && this != FLOAT && this != DOUBLE;
  }

  /** The type of a wire value; INVALID_ARGUMENT for an unknown one. */
  static Type fromPb(DataTypePB pb) {
    for (Type t : values()) {
      if (t.pb == pb) {
        return t;
      }
    }
    throw NyalaException.invalidArgument("unknown data type %s", pb);
  }

  /**
   * Whether {@code v} is a value of this type as it is, without conversion.
   *
   * @param v a non-null value
   * @return true if {@code v} is an instance of {@link #javaClass()}
   */
  public boolean accepts(Object v) {
    return javaClass.isInstance(v);
  }

  /**
   * Compares two non-null values of this type. Binary compares unsigned lexicographically.
   *
   * @param a a value of this type
   * @param b a value of this type
   * @return negative, zero or positive as {@code a} sorts before, with or after {@code b}
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public int compare(Object a, Object b) {
    if (this == BINARY) {
      return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
    }
    return ((Comparable) a).compareTo(b);
  }

  /**
   * Whether two non-null values of this type are equal (binary by content).
   *
   * @param a a value of this type
   * @param b a value of this type
   * @return true if equal
   */
  public boolean valueEquals(Object a, Object b) {
    if (this == BINARY) {
      return Arrays.equals((byte[]) a, (byte[]) b);
    }
    if (this == DECIMAL) {
      return ((BigDecimal) a).compareTo((BigDecimal) b) == 0;
    }
    return a.equals(b);
  }

  /**
   * Converts a literal to this type, widening or narrowing integers with a range check.
   *
   * @param column the column the value is for, named in the error
   * @param v a non-null value
   * @return the value as an instance of {@link #javaClass()}
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT if {@code v} does not fit
   */
  public Object coerce(String column, Object v) {
    if (accepts(v)) {
      return checkRange(column, v);
    }
    if (this == DECIMAL && (v instanceof Long || v instanceof Integer || v instanceof Short
        || v instanceof Byte)) {
      return checkRange(column, BigDecimal.valueOf(((Number) v).longValue()));
    }
    if (v instanceof Number n && isInteger() && (v instanceof Long || v instanceof Integer
        || v instanceof Short || v instanceof Byte)) {
      long l = n.longValue();
      switch (this) {
        case INT8:
          if (l >= Byte.MIN_VALUE && l <= Byte.MAX_VALUE) {
            return (byte) l;
          }
          break;
        case INT16:
          if (l >= Short.MIN_VALUE && l <= Short.MAX_VALUE) {
            return (short) l;
          }
          break;
        case INT32:
          if (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
            return (int) l;
          }
          break;
        default:
          return l;
      }
      throw NyalaException.invalidArgument(
          "value %d out of range for column '%s' of type %s", l, column, this);
    }
    if (this == DOUBLE && v instanceof Float f) {
      return f.doubleValue();
    }
    throw NyalaException.invalidArgument(
        "column '%s' is of type %s, not %s", column, this, describe(v));
  }

  /** A value of this type checked against the type's own range, whatever the column. */
  private Object checkRange(String column, Object v) {
    switch (this) {
      case DATE -> {
        LocalDate d = (LocalDate) v;
        if (d.isBefore(MIN_DATE) || d.isAfter(MAX_DATE)) {
          throw NyalaException.invalidArgument("date %s for column '%s' is not in %s..%s", d,
              column, MIN_DATE, MAX_DATE);
        }
      }
      case TIMESTAMP -> Timestamps.toMicros(column, (Instant) v);
      case DECIMAL -> {
        BigDecimal d = (BigDecimal) v;
        int max = ColumnTypeAttributes.MAX_DECIMAL_PRECISION;
        // Checked first: rescaling or printing 1E-999999999 would cost a server its memory.
        if (d.scale() < -max || d.scale() > max) {
          throw NyalaException.invalidArgument("value %s for column '%s' has scale %d; DECIMAL"
              + " takes -%d..%d", d, column, d.scale(), max, max);
        }
        if (d.precision() > max) {
          throw NyalaException.invalidArgument("value %s for column '%s' has %d digits; DECIMAL"
              + " holds at most %d", d.toPlainString(), column, d.precision(),
              ColumnTypeAttributes.MAX_DECIMAL_PRECISION);
        }
      }
      default -> { }
    }
    return v;
  }

  /**
   * Whether values of this type are integers (UNIXTIME_MICROS counts).
   *
   * @return true for INT8 to INT64 and UNIXTIME_MICROS
   */
  public boolean isInteger() {
    return this == INT8 || this == INT16 || this == INT32 || this == INT64
        || this == UNIXTIME_MICROS;
  }

  private static String describe(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof byte[]) {
      return "BINARY";
    }
    for (Type t : values()) {
      if (t != UNIXTIME_MICROS && t != VARCHAR && t.javaClass.isInstance(v)) {
        return t.name();
      }
    }
    return v.getClass().getSimpleName();
  }

  /**
   * A value as a {@link ValuePB}.
   *
   * @param v a non-null value of this type
   * @return its wire form
   */
  @InternalApi
  public ValuePB toValuePb(Object v) {
    ValuePB.Builder b = ValuePB.newBuilder();
    switch (this) {
      case INT8, INT16, INT32, INT64, UNIXTIME_MICROS -> b.setIntValue(((Number) v).longValue());
      case BOOL -> b.setBoolValue((Boolean) v);
      case FLOAT -> b.setFloatValue((Float) v);
      case DOUBLE -> b.setDoubleValue((Double) v);
      case STRING, VARCHAR -> b.setStringValue((String) v);
      case DECIMAL -> b.setStringValue(((BigDecimal) v).toPlainString());
      case DATE -> b.setIntValue(((LocalDate) v).toEpochDay());
      case TIMESTAMP -> b.setIntValue(Timestamps.toMicros("", (Instant) v));
      case BINARY -> b.setBinaryValue(com.google.protobuf.ByteString.copyFrom((byte[]) v));
      default -> throw new AssertionError(this);
    }
    return b.build();
  }

  /**
   * A {@link ValuePB} as a value of this type; names {@code column} when it does not fit.
   *
   * @param column the column the value is for
   * @param pb the wire value
   * @return the value as an instance of {@link #javaClass()}
   */
  @InternalApi
  public Object fromValuePb(String column, ValuePB pb) {
    Object raw = switch (pb.getValueCase()) {
      case BOOL_VALUE -> pb.getBoolValue();
      case INT_VALUE -> pb.getIntValue();
      case FLOAT_VALUE -> pb.getFloatValue();
      case DOUBLE_VALUE -> pb.getDoubleValue();
      case STRING_VALUE -> pb.getStringValue();
      case BINARY_VALUE -> pb.getBinaryValue().toByteArray();
      case VALUE_NOT_SET -> throw NyalaException.invalidArgument(
          "value for column '%s' is not set", column);
    };
    return coerce(column, fromWireForm(column, raw));
  }

  /** The Java value of a new type's wire form; others pass through as they are. */
  private Object fromWireForm(String column, Object raw) {
    if (this == DATE && raw instanceof Long l) {
      if (l < MIN_DATE.toEpochDay() || l > MAX_DATE.toEpochDay()) {
        throw NyalaException.invalidArgument(
            "date of %d days for column '%s' is not in %s..%s", l, column, MIN_DATE, MAX_DATE);
      }
      return LocalDate.ofEpochDay(l);
    }
    if (this == TIMESTAMP && raw instanceof Long l) {
      return Timestamps.fromMicros(l);
    }
    if (this == DECIMAL && raw instanceof String s) {
      try {
        return new BigDecimal(s);
      } catch (NumberFormatException e) {
        throw NyalaException.invalidArgument(
            "value '%s' for DECIMAL column '%s' is not a decimal number", s, column);
      }
    }
    return raw;
  }
}
