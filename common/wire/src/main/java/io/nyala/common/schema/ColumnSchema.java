package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnSchemaPB;

/**
 * One column of a table: name, type, whether it is part of the primary key, nullability, an
 * optional default and a stable id (assigned by the master; 0 until then).
 */
public record ColumnSchema(
    String name, Type type, boolean key, boolean nullable, Object defaultValue, int id) {

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
    if (defaultValue != null) {
      defaultValue = type.coerce(name, defaultValue);
    }
  }

  /** Starts a column; it is non-key and nullable unless told otherwise. */
  public static Builder builder(String name, Type type) {
    return new Builder(name, type);
  }

  public ColumnSchema withId(int newId) {
    return new ColumnSchema(name, type, key, nullable, defaultValue, newId);
  }

  public ColumnSchema withName(String newName) {
    return new ColumnSchema(newName, type, key, nullable, defaultValue, id);
  }

  @InternalApi
  public ColumnSchemaPB toPb() {
    ColumnSchemaPB.Builder b = ColumnSchemaPB.newBuilder()
        .setName(name).setType(type.toPb()).setIsKey(key).setIsNullable(nullable).setId(id);
    if (defaultValue != null) {
      b.setDefaultValue(type.toValuePb(defaultValue));
    }
    return b.build();
  }

  @InternalApi
  public static ColumnSchema fromPb(ColumnSchemaPB pb) {
    Type t = Type.fromPb(pb.getType());
    Object def = pb.hasDefaultValue() ? t.fromValuePb(pb.getName(), pb.getDefaultValue()) : null;
    return new ColumnSchema(pb.getName(), t, pb.getIsKey(), pb.getIsNullable(), def, pb.getId());
  }

  /** Builder for {@link ColumnSchema}. */
  public static final class Builder {
    private final String name;
    private final Type type;
    private boolean key;
    private boolean nullable = true;
    private boolean nullableSet;
    private Object defaultValue;

    private Builder(String name, Type type) {
      this.name = name;
      this.type = type;
    }

    /** Makes this a primary key column (and so non-nullable). */
    public Builder key(boolean isKey) {
      this.key = isKey;
      return this;
    }

    public Builder nullable(boolean isNullable) {
      this.nullable = isNullable;
      this.nullableSet = true;
      return this;
    }

    /** The value for rows that do not set this column. */
    public Builder defaultValue(Object value) {
      this.defaultValue = value;
      return this;
    }

    public ColumnSchema build() {
      boolean n = key && !nullableSet ? false : nullable;
      return new ColumnSchema(name, type, key, n, defaultValue, 0);
    }
  }
}
