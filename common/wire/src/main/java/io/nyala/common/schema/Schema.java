package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.SchemaPB;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's columns: the primary key columns first, then the others. Immutable; a schema change
 * makes a new one with a higher {@link #version()}.
 */
public final class Schema {
  private final List<ColumnSchema> columns;
  private final int numKeyColumns;
  private final Map<String, Integer> indexByName;
  private final int version;

  /**
   * A schema at version 0; it may lack a primary key (e.g. a projection). Tables use
   * {@link #forTable}.
   *
   * @param columns the key columns first, then the others; names unique
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the column that breaks a rule
   */
  public Schema(List<ColumnSchema> columns) {
    this(columns, 0);
  }

  /**
   * A schema at a given version.
   *
   * @param columns the key columns first, then the others; names unique
   * @param version the table's schema version (the master raises it on each change)
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming the column that breaks a rule
   */
  public Schema(List<ColumnSchema> columns, int version) {
    if (columns == null || columns.isEmpty()) {
      throw NyalaException.invalidArgument("schema has no columns");
    }
    this.columns = List.copyOf(columns);
    this.version = version;
    Map<String, Integer> idx = new HashMap<>();
    int keys = 0;
    boolean seenNonKey = false;
    for (int i = 0; i < this.columns.size(); i++) {
      ColumnSchema c = this.columns.get(i);
      if (idx.put(c.name(), i) != null) {
        throw NyalaException.invalidArgument("duplicate column name '%s'", c.name());
      }
      if (c.key()) {
        if (seenNonKey) {
          throw NyalaException.invalidArgument(
              "key column '%s' must come before the non-key columns", c.name());
        }
        keys++;
      } else {
        seenNonKey = true;
      }
    }
    this.numKeyColumns = keys;
    this.indexByName = Collections.unmodifiableMap(idx);
  }

  /**
   * A schema that must have a primary key, as a table's must.
   *
   * @param columns the key columns first, then the others
   * @return the schema, at version 0
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT if no column is a key column
   */
  public static Schema forTable(List<ColumnSchema> columns) {
    Schema s = new Schema(columns);
    if (s.numKeyColumns == 0) {
      throw NyalaException.invalidArgument("schema has no primary key column");
    }
    return s;
  }

  /**
   * All columns, key columns first.
   *
   * @return an unmodifiable list
   */
  public List<ColumnSchema> columns() {
    return columns;
  }

  /**
   * The number of columns.
   *
   * @return the count
   */
  public int columnCount() {
    return columns.size();
  }

  /**
   * The number of primary key columns; they are the first ones.
   *
   * @return the count
   */
  public int keyColumnCount() {
    return numKeyColumns;
  }

  /**
   * The primary key columns, in key order.
   *
   * @return an unmodifiable list
   */
  public List<ColumnSchema> keyColumns() {
    return columns.subList(0, numKeyColumns);
  }

  /**
   * The schema's version: 0 for a new table, raised by each schema change.
   *
   * @return the version
   */
  public int version() {
    return version;
  }

  /**
   * The column at a position.
   *
   * @param index 0 to {@link #columnCount()} - 1
   * @return the column
   * @throws IndexOutOfBoundsException for any other index
   */
  public ColumnSchema column(int index) {
    return columns.get(index);
  }

  /**
   * The column of a name.
   *
   * @param name the column's name
   * @return the column
   * @throws io.nyala.common.NyalaException NOT_FOUND naming the column if absent
   */
  public ColumnSchema column(String name) {
    return columns.get(columnIndex(name));
  }

  /**
   * The position of a column.
   *
   * @param name the column's name
   * @return its index
   * @throws io.nyala.common.NyalaException NOT_FOUND naming the column if absent
   */
  public int columnIndex(String name) {
    Integer i = indexByName.get(name);
    if (i == null) {
      throw NyalaException.notFound("column '%s' not found in the schema", name);
    }
    return i;
  }

  /**
   * Whether the schema has a column of a name.
   *
   * @param name the column's name
   * @return true if present
   */
  public boolean hasColumn(String name) {
    return indexByName.containsKey(name);
  }

  /**
   * The sub-schema of the named columns, in the given order: the shape of a scan's rows. Its
   * columns are not key columns, and former key columns become nullable.
   *
   * @param names the columns; null or empty for all
   * @return the projection (this schema for all columns)
   * @throws io.nyala.common.NyalaException NOT_FOUND naming a column that is absent
   */
  public Schema project(List<String> names) {
    if (names == null || names.isEmpty()) {
      return this;
    }
    List<ColumnSchema> out = new ArrayList<>(names.size());
    for (String n : names) {
      ColumnSchema c = column(n);
      // A projection is a row shape, not a table: key flags matter only for ordering there.
      out.add(new ColumnSchema(c.name(), c.type(), false, c.nullable() || c.key(),
          c.defaultValue(), c.id(), c.typeAttributes()));
    }
    return new Schema(out, version);
  }

  /**
   * These columns at another version.
   *
   * @param newVersion the version
   * @return a copy at {@code newVersion}
   */
  public Schema withVersion(int newVersion) {
    return new Schema(columns, newVersion);
  }

  /**
   * The wire form.
   *
   * @return the schema as a {@code SchemaPB}
   */
  @InternalApi
  public SchemaPB toPb() {
    SchemaPB.Builder b = SchemaPB.newBuilder().setVersion(version);
    for (ColumnSchema c : columns) {
      b.addColumns(c.toPb());
    }
    return b.build();
  }

  /**
   * Reads the wire form; INVALID_ARGUMENT naming the column when it is not a valid schema.
   *
   * @param pb a schema on the wire
   * @return the schema
   */
  @InternalApi
  public static Schema fromPb(SchemaPB pb) {
    List<ColumnSchema> cols = new ArrayList<>(pb.getColumnsCount());
    for (ColumnSchemaPB c : pb.getColumnsList()) {
      cols.add(ColumnSchema.fromPb(c));
    }
    return new Schema(cols, pb.getVersion());
  }

  /**
   * A fresh row to fill for an operation on this schema.
   *
   * @return a row with no column set
   */
  public PartialRow newPartialRow() {
    return new PartialRow(this);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Schema s && s.columns.equals(columns) && s.version == version;
  }

  @Override
  public int hashCode() {
    return columns.hashCode() * 31 + version;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < columns.size(); i++) {
      ColumnSchema c = columns.get(i);
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(c.name()).append(' ').append(c.type());
      if (c.key()) {
        sb.append(" KEY");
      } else if (!c.nullable()) {
        sb.append(" NOT NULL");
      }
    }
    return sb.append(')').toString();
  }
}
