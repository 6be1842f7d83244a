package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.row.RowOpType;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The semantics of each row operation on one key, independent of how rows are stored: what the
 * row becomes, or the per-row error. Pure functions of (operation, current row), which keeps
 * apply deterministic on every replica.
 */
public final class RowMutator {
  /** Marker result: the row is deleted. */
  static final Object[] DELETED = new Object[0];

  private final Schema schema;

  public RowMutator(Schema schema) {
    this.schema = schema;
  }

  /**
   * Where each column of {@code writeSchema} sits in the tablet schema. Each must exist there with
   * the same type and keyness; INVALID_ARGUMENT names the column otherwise.
   */
  public static int[] columnMap(Schema tablet, Schema writeSchema) {
    int[] map = new int[writeSchema.columnCount()];
    for (int i = 0; i < map.length; i++) {
      ColumnSchema w = writeSchema.column(i);
      if (!tablet.hasColumn(w.name())) {
        throw NyalaException.invalidArgument(
            "column '%s' of the request does not exist in the tablet's schema (version %d): "
                + "it was dropped, renamed or never existed", w.name(), tablet.version());
      }
      int t = tablet.columnIndex(w.name());
      ColumnSchema c = tablet.column(t);
      if (c.type() != w.type()) {
        throw NyalaException.invalidArgument(
            "column '%s' is of type %s in the tablet but %s in the request",
            w.name(), c.type(), w.type());
      }
      if (c.key() != w.key()) {
        throw NyalaException.invalidArgument(
            "column '%s' is %s in the tablet but %s in the request", w.name(),
            keyness(c.key()), keyness(w.key()));
      }
      map[i] = t;
    }
    return map;
  }

  private static String keyness(boolean key) {
    return key ? "a key column" : "not a key column";
  }

  /** An operation's values in tablet column order and which of them it sets. */
  record TabletRow(Object[] values, BitSet set) {}

  /** Moves a decoded row into tablet positions and checks its key and nulls. */
  TabletRow translate(RowOpType type, PartialRow row, int[] map) {
    Object[] values = new Object[schema.columnCount()];
    BitSet set = new BitSet(values.length);
    for (int i = 0; i < map.length; i++) {
      if (row.isSet(i)) {
        values[map[i]] = row.get(i);
        set.set(map[i]);
      }
    }
    for (int i = 0; i < schema.keyColumnCount(); i++) {
      if (!set.get(i) || values[i] == null) {
        throw NyalaException.invalidArgument(
            "row is missing key column '%s'", schema.column(i).name());
      }
    }
    if (!type.isDelete()) {
      for (int i = set.nextSetBit(0); i >= 0; i = set.nextSetBit(i + 1)) {
        ColumnSchema c = schema.column(i);
        if (values[i] == null && !c.nullable()) {
          throw NyalaException.invalidArgument(
              "column '%s' is not nullable and cannot be set to null", c.name());
        }
      }
    }
    return new TabletRow(values, set);
  }

  /**
   * The row after {@code type} on a key whose current row is {@code current} (null = absent):
   * a new full row, {@link #DELETED}, or null for no change.
   */
  Object[] mutate(RowOpType type, TabletRow r, Object[] current) {
    return switch (type) {
      case INSERT -> {
        if (current != null) {
          throw NyalaException.alreadyPresent("key %s already present", keyText(r.values()));
        }
        yield newRow(type, r);
      }
      case INSERT_IGNORE -> current != null ? null : newRow(type, r);
      case UPSERT -> current != null ? updated(current, r) : newRow(type, r);
      case UPDATE -> {
        if (current == null) {
          throw NyalaException.notFound("key %s not found", keyText(r.values()));
        }
        yield updated(current, r);
      }
      case UPDATE_IGNORE -> current == null ? null : updated(current, r);
      case DELETE -> {
        if (current == null) {
          throw NyalaException.notFound("key %s not found", keyText(r.values()));
        }
        yield DELETED;
      }
      case DELETE_IGNORE -> current == null ? null : DELETED;
    };
  }

  private Object[] newRow(RowOpType type, TabletRow r) {
    Object[] row = r.values().clone();
    for (int i = schema.keyColumnCount(); i < row.length; i++) {
      if (r.set().get(i)) {
        continue;
      }
      ColumnSchema c = schema.column(i);
      if (c.defaultValue() != null) {
        row[i] = c.defaultValue();
      } else if (!c.nullable()) {
        String op = type == RowOpType.INSERT_IGNORE ? "INSERT" : type.name();
        throw NyalaException.invalidArgument(
            "%s is missing non-nullable column '%s'", op, c.name());
      }
    }
    return row;
  }

  private Object[] updated(Object[] current, TabletRow r) {
    Object[] row = current.clone();
    BitSet set = r.set();
    for (int i = set.nextSetBit(schema.keyColumnCount()); i >= 0; i = set.nextSetBit(i + 1)) {
      row[i] = r.values()[i];
    }
    return row;
  }

  /** The key as the client wrote it, e.g. {@code (id=5)}: for errors to that client only. */
  String keyText(Object[] values) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < schema.keyColumnCount(); i++) {
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
