package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnTypeAttributesPB;
import java.math.BigDecimal;

/**
 * What a column's type needs beyond its name, as Kudu's {@code ColumnTypeAttributes}: a
 * DECIMAL's precision and scale, a VARCHAR's maximum length. Other types have none (null on
 * {@link ColumnSchema}). Values that do not fit are rejected, never rounded or truncated
 * (docs/architecture.md, "Column types").
 *
 * @param precision a DECIMAL's total digits, 1 to 38; 0 for VARCHAR
 * @param scale a DECIMAL's digits after the point, 0 to {@code precision}; 0 for VARCHAR
 * @param length a VARCHAR's maximum length in characters (code points), 1 to 65535; 0 for
 *     DECIMAL
 */
public record ColumnTypeAttributes(int precision, int scale, int length) {
  /** The largest DECIMAL precision: what a signed 128-bit unscaled value always holds. */
  public static final int MAX_DECIMAL_PRECISION = 38;
  /** The largest VARCHAR length. */
  public static final int MAX_VARCHAR_LENGTH = 65535;

  /**
   * A DECIMAL's attributes.
   *
   * @param precision total digits, 1 to 38
   * @param scale digits after the point, 0 to {@code precision}
   * @return the attributes (checked against a column by {@link ColumnSchema})
   */
  public static ColumnTypeAttributes decimal(int precision, int scale) {
    return new ColumnTypeAttributes(precision, scale, 0);
  }

  /**
   * A VARCHAR's attributes.
   *
   * @param length the maximum length in characters, 1 to 65535
   * @return the attributes (checked against a column by {@link ColumnSchema})
   */
  public static ColumnTypeAttributes varchar(int length) {
    return new ColumnTypeAttributes(0, 0, length);
  }

  /** Checks that a column of {@code type} named {@code column} may have these attributes. */
  static void check(String column, Type type, ColumnTypeAttributes a) {
    boolean needs = type == Type.DECIMAL || type == Type.VARCHAR;
    if (a == null) {
      if (needs) {
        throw NyalaException.invalidArgument("column '%s' of type %s needs %s", column, type,
            type == Type.DECIMAL ? "a precision and a scale" : "a maximum length");
      }
      return;
    }
    if (!needs) {
      throw NyalaException.invalidArgument(
          "column '%s' of type %s takes no type attributes, got %s", column, type, a);
    }
    if (type == Type.DECIMAL) {
      if (a.precision < 1 || a.precision > MAX_DECIMAL_PRECISION) {
        throw NyalaException.invalidArgument("column '%s': DECIMAL precision %d is not in 1..%d",
            column, a.precision, MAX_DECIMAL_PRECISION);
      }
      if (a.scale < 0 || a.scale > a.precision) {
        throw NyalaException.invalidArgument("column '%s': DECIMAL scale %d is not in 0..%d",
            column, a.scale, a.precision);
      }
    } else if (a.length < 1 || a.length > MAX_VARCHAR_LENGTH) {
      throw NyalaException.invalidArgument("column '%s': VARCHAR length %d is not in 1..%d",
          column, a.length, MAX_VARCHAR_LENGTH);
    }
  }

  /**
   * A value of the column's type checked against these attributes: a DECIMAL rescaled to the
   * column's scale when that loses nothing, else rejected, as is one with more digits than the
   * precision; a VARCHAR longer than the length is rejected.
   */
  Object fit(String column, Type type, Object v) {
    if (type == Type.DECIMAL) {
      BigDecimal d = rescale(column, (BigDecimal) v);
      if (d.precision() - d.scale() > precision - scale && d.signum() != 0) {
        throw NyalaException.invalidArgument(
            "value %s for column '%s' has %d digits before the point; DECIMAL(%d,%d) holds %d",
            d.toPlainString(), column, d.precision() - d.scale(), precision, scale,
            precision - scale);
      }
      return d;
    }
    if (type == Type.VARCHAR) {
      String s = (String) v;
      int n = s.codePointCount(0, s.length());
      if (n > length) {
        throw NyalaException.invalidArgument(
            "value for column '%s' is %d characters long; VARCHAR(%d) holds at most %d",
            column, n, length, length);
      }
    }
    return v;
  }

  /**
   * A DECIMAL literal at the column's scale, with trailing zeros dropped or added; one whose
   * digits after the point do not fit is rejected, naming the column.
   */
  BigDecimal rescale(String column, BigDecimal d) {
    if (d.scale() == scale) {
      return d;
    }
    try {
      return d.setScale(scale);
    } catch (ArithmeticException e) {
      throw NyalaException.invalidArgument(
          "value %s for column '%s' has scale %d; DECIMAL(%d,%d) takes at most %d digits after"
              + " the point", d.toPlainString(), column, d.scale(), precision, scale, scale);
    }
  }

  /** The SQL spelling of a column's type, e.g. {@code decimal(10,2)} or {@code varchar(20)}. */
  static String sqlName(Type type, ColumnTypeAttributes a) {
    String base = type.name().toLowerCase(java.util.Locale.ROOT);
    if (a == null) {
      return base;
    }
    return type == Type.DECIMAL ? base + "(" + a.precision + "," + a.scale + ")"
        : base + "(" + a.length + ")";
  }

  /**
   * The wire form.
   *
   * @return the attributes as a {@code ColumnTypeAttributesPB}
   */
  @InternalApi
  public ColumnTypeAttributesPB toPb() {
    return ColumnTypeAttributesPB.newBuilder()
        .setPrecision(precision).setScale(scale).setLength(length).build();
  }

  /**
   * Reads the wire form.
   *
   * @param pb attributes on the wire
   * @return the attributes, unchecked until they make a {@link ColumnSchema}
   */
  @InternalApi
  public static ColumnTypeAttributes fromPb(ColumnTypeAttributesPB pb) {
    return new ColumnTypeAttributes(pb.getPrecision(), pb.getScale(), pb.getLength());
  }
}
