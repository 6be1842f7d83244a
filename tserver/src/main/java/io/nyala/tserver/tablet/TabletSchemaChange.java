package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.HashMap;
import java.util.Map;

/**
 * Which schema changes (ALTER_SCHEMA) are allowed. Columns are matched by their id, so a rename
 * keeps its values; a column of the new schema with no match is added (existing rows read its
 * default, or null; the store's {@code rowset.Projection} reads them so), and an old column with
 * no match is dropped. When either side has unassigned ids (0), columns are matched by name.
 *
 * <p>Pure and deterministic: the leader checks a change with it before replicating, and every
 * replica derives the same mapping when it applies the entry.
 */
public final class TabletSchemaChange {
  private final Schema from;
  private final Schema to;
  /** For each column of {@code to}: its position in {@code from}, or -1 if added. */
  private final int[] source;

  private TabletSchemaChange(Schema from, Schema to, int[] source) {
    this.from = from;
    this.to = to;
    this.source = source;
  }

  /**
   * The change from {@code from} to {@code to}; INVALID_ARGUMENT naming the column if it changes
   * the primary key, a column's type, or adds a non-nullable column without a default.
   */
  public static TabletSchemaChange between(Schema from, Schema to) {
    boolean byId = allIdsAssigned(from) && allIdsAssigned(to);
    Map<Object, Integer> old = new HashMap<>();
    for (int i = 0; i < from.columnCount(); i++) {
      old.put(matchKey(from.column(i), byId), i);
    }
    int[] source = new int[to.columnCount()];
    for (int i = 0; i < source.length; i++) {
      ColumnSchema c = to.column(i);
      Integer s = old.get(matchKey(c, byId));
      source[i] = s == null ? -1 : s;
      check(from, c, s);
    }
    if (from.keyColumnCount() != to.keyColumnCount()) {
      throw NyalaException.invalidArgument("schema version %d has %d key columns, version %d "
          + "has %d: the primary key cannot change", to.version(), to.keyColumnCount(),
          from.version(), from.keyColumnCount());
    }
    for (int i = 0; i < to.keyColumnCount(); i++) {
      if (source[i] != i) {
        throw NyalaException.invalidArgument("key column '%s' of schema version %d is not key "
            + "column %d of version %d: the primary key cannot change", to.column(i).name(),
            to.version(), i, from.version());
      }
    }
    return new TabletSchemaChange(from, to, source);
  }

  private static void check(Schema from, ColumnSchema c, Integer s) {
    if (s == null) {
      if (c.key()) {
        throw NyalaException.invalidArgument("cannot add key column '%s'", c.name());
      }
      if (!c.nullable() && c.defaultValue() == null) {
        throw NyalaException.invalidArgument(
            "added column '%s' is not nullable and has no default for existing rows", c.name());
      }
      return;
    }
    ColumnSchema o = from.column(s);
    if (o.type() != c.type()) {
      throw NyalaException.invalidArgument("column '%s' cannot change type from %s to %s",
          c.name(), o.type(), c.type());
    }
    if (o.nullable() && !c.nullable()) {
      throw NyalaException.invalidArgument(
          "column '%s' cannot become non-nullable: existing rows may hold nulls", c.name());
    }
  }

  private static boolean allIdsAssigned(Schema s) {
    return s.columns().stream().allMatch(c -> c.id() != 0);
  }

  private static Object matchKey(ColumnSchema c, boolean byId) {
    return byId ? (Object) c.id() : c.name();
  }

  public Schema from() {
    return from;
  }

  public Schema to() {
    return to;
  }
}
