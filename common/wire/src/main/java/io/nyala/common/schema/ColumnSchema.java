package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnSchemaPB;
import java.math.BigDecimal;

/**
 * One column of a table: name, type, whether it is part of the primary key, nullability, an
 * optional default and a stable id (assigned by the master; 0 until then).
 *
 * @param name the column's name, unique in its schema
 * @param type the type of its values
 * @param key whether it is part of the primary key
 * @param nullable whether it may hold null (never for a key column)
 * @param defaultValue the value of rows that do not set it, or null for none
 * @param id the master's id of the column, or 0 before the master assigned one
 * @param typeAttributes a DECIMAL's precision and scale or a VARCHAR's length; null for the
 *     other types
 */
public record ColumnSchema(String name, Type type, boolean key, boolean nullable,
    Object defaultValue, int id, ColumnTypeAttributes typeAttributes) {

  /**
   * Checks the column and converts the default to the column's type; INVALID_ARGUMENT naming
   * the column when something does not fit.
   */
  public ColumnSchema {
    if (name == null || name.isEmpty()) {
      throw NyalaException.invalidArgument("column name must not be empty");
    }
    if (type == null) {
      throw NyalaException.invalidArgument("column '%s' has no type", name);
    }
    if (key && nullable) {
      throw NyalaException.invalidArgument("key column '%s' cannot be nullable", name);
    }
    if (key && !type.canBeKey()) {
      throw NyalaException.invalidArgument(
          "column '%s' of type %s cannot be a key column", name, type);
    }
    ColumnTypeAttributes.check(name, type, typeAttributes);
    if (defaultValue != null) {
      defaultValue = type.coerce(name, defaultValue);
      if (typeAttributes != null) {
        defaultValue = typeAttributes.fit(name, type, defaultValue);
      }
    }
  }

  /**
   * A column of a type without attributes (all but DECIMAL and VARCHAR).
   *
   * @param name the column's name
   * @param type the type of its values
   * @param key whether it is part of the primary key
   * @param nullable whether it may hold null
   * @param defaultValue the default, or null for none
   * @param id the master's id of the column, or 0
   */
  public ColumnSchema(
      String name, Type type, boolean key, boolean nullable, Object defaultValue, int id) {
    this(name, type, key, nullable, defaultValue, id, null);
  }

  /**
   * Converts a value to this column's type and checks it against the column's attributes (a
   * DECIMAL's precision and scale, a VARCHAR's length).
   *
   * @param v a non-null value
   * @return the value as stored
   * @throws NyalaException INVALID_ARGUMENT naming the column and the value if it does not fit
   */
  public Object checkValue(Object v) {
    Object c = type.coerce(name, v);
    return typeAttributes == null ? c : typeAttributes.fit(name, type, c);
  }

  /**
   * Converts a predicate literal to this column's type: like {@link #checkValue}, but a
   * literal may lie outside the column's range (a VARCHAR longer than its length, a DECIMAL
   * with more digits); a DECIMAL's must still have no more digits after the point, and at
   * most 38 in all at the column's scale.
   *
   * @param v a non-null literal
   * @return the literal as compared with the column's values
   * @throws NyalaException INVALID_ARGUMENT naming the column if it does not fit
   */
  public Object checkLiteral(Object v) {
    Object c = type.coerce(name, v);
    if (type != Type.DECIMAL) {
      return c;
    }
    BigDecimal d = typeAttributes.rescale(name, (BigDecimal) c);
    if (d.precision() > ColumnTypeAttributes.MAX_DECIMAL_PRECISION) {
      // Beyond 38 digits the unscaled value would not fit the 128 bits of a key.
      throw NyalaException.invalidArgument("literal %s for column '%s' has more than %d digits"
          + " at scale %d", d.toPlainString(), name, ColumnTypeAttributes.MAX_DECIMAL_PRECISION,
          d.scale());
    }
    return d;
  }

  /**
   * The type as SQL spells it, e.g. {@code int64}, {@code decimal(10,2)}, {@code varchar(20)}.
   *
   * @return the type's lower-case name with its attributes
   */
  public String typeName() {
    return ColumnTypeAttributes.sqlName(type, typeAttributes);
  }

  /**
   * Starts a column; it is non-key and nullable unless told otherwise.
   *
   * @param name the column's name
   * @param type the type of its values
   * @return a builder
   */
  public static Builder builder(String name, Type type) {
    return new Builder(name, type);
  }

  /**
   * This column with another id.
   *
   * @param newId the id
   * @return a copy with {@code newId}
   */
  public ColumnSchema withId(int newId) {
    return new ColumnSchema(name, type, key, nullable, defaultValue, newId, typeAttributes);
  }

  /**
   * This column under another name (a rename keeps the id).
   *
   * @param newName the name
   * @return a copy named {@code newName}
   */
  public ColumnSchema withName(String newName) {
    return new ColumnSchema(newName, type, key, nullable, defaultValue, id, typeAttributes);
  }

  /**
   * The wire form.
   *
   * @return the column as a {@code ColumnSchemaPB}
   */
  @InternalApi
  public ColumnSchemaPB toPb() {
    ColumnSchemaPB.Builder b = ColumnSchemaPB.newBuilder()
        .setName(name).setType(type.toPb()).setIsKey(key).setIsNullable(nullable).setId(id);
    if (defaultValue != null) {
      b.setDefaultValue(type.toValuePb(defaultValue));
    }
    if (typeAttributes != null) {
      b.setTypeAttributes(typeAttributes.toPb());
    }
    return b.build();
  }

  /**
   * Reads the wire form; INVALID_ARGUMENT naming the column when it is not a valid column.
   *
   * @param pb a column on the wire
   * @return the column
   */
  @InternalApi
  public static ColumnSchema fromPb(ColumnSchemaPB pb) {
    Type t = Type.fromPb(pb.getType());
    Object def = pb.hasDefaultValue() ? t.fromValuePb(pb.getName(), pb.getDefaultValue()) : null;
    ColumnTypeAttributes attrs =
        pb.hasTypeAttributes() ? ColumnTypeAttributes.fromPb(pb.getTypeAttributes()) : null;
    return new ColumnSchema(
        pb.getName(), t, pb.getIsKey(), pb.getIsNullable(), def, pb.getId(), attrs);
  }

  /** Builder for {@link ColumnSchema}. */
  public static final class Builder {
    private final String name;
    private final Type type;
    private boolean key;
    private boolean nullable = true;
    private boolean nullableSet;
    private Object defaultValue;
    private ColumnTypeAttributes typeAttributes;

    private Builder(String name, Type type) {
      this.name = name;
      this.type = type;
    }

    /**
     * Makes this a primary key column (and so non-nullable).
     *
     * @param isKey whether the column is part of the primary key
     * @return this builder
     */
    public Builder key(boolean isKey) {
      this.key = isKey;
      return this;
    }

    /**
     * Whether the column may hold null; a key column may not.
     *
     * @param isNullable true to allow null
     * @return this builder
     */
    public Builder nullable(boolean isNullable) {
      this.nullable = isNullable;
      this.nullableSet = true;
      return this;
    }

    /**
     * The value for rows that do not set this column.
     *
     * @param value a value of the column's type (integers are narrowed), or null for none
     * @return this builder
     */
    public Builder defaultValue(Object value) {
      this.defaultValue = value;
      return this;
    }

    /**
     * A DECIMAL's precision and scale or a VARCHAR's length.
     *
     * @param attributes the attributes, or null for a type without them
     * @return this builder
     */
    public Builder typeAttributes(ColumnTypeAttributes attributes) {
      this.typeAttributes = attributes;
      return this;
    }

    /**
     * A DECIMAL's precision (total digits, 1 to 38); the scale stays as set, else 0.
     *
     * @param p the precision
     * @return this builder
     */
    public Builder precision(int p) {
      int s = typeAttributes == null ? 0 : typeAttributes.scale();
      this.typeAttributes = ColumnTypeAttributes.decimal(p, s);
      return this;
    }

    /**
     * A DECIMAL's scale (digits after the point, 0 to the precision).
     *
     * @param s the scale
     * @return this builder
     */
    public Builder scale(int s) {
      int p = typeAttributes == null ? 0 : typeAttributes.precision();
      this.typeAttributes = ColumnTypeAttributes.decimal(p, s);
      return this;
    }

    /**
     * A VARCHAR's maximum length in characters (1 to 65535).
     *
     * @param n the length
     * @return this builder
     */
    public Builder length(int n) {
      this.typeAttributes = ColumnTypeAttributes.varchar(n);
      return this;
    }

    /**
     * The column; INVALID_ARGUMENT naming it when the settings do not fit together.
     *
     * @return the column, with id 0
     */
    public ColumnSchema build() {
      boolean n = key && !nullableSet ? false : nullable;
      return new ColumnSchema(name, type, key, n, defaultValue, 0, typeAttributes);
    }
  }
}
