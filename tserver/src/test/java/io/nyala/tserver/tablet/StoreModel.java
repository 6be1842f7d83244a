package io.nyala.tserver.tablet;

import io.nyala.common.StatusCode;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simple model the engine must match: key → row in the current schema, with the row
 * operation rules written out plainly and schema changes applied to every row (and to saved
 * snapshots) the way a reader of the new schema must see them.
 */
public final class StoreModel {
  Schema schema;
  TreeMap<Integer, Object[]> rows = new TreeMap<>();

  StoreModel(Schema schema) {
    this.schema = schema;
  }

  /** Applies one operation; returns the expected error code or null. */
  StatusCode apply(Op op) {
    int key = (Integer) op.row().get(0);
    Object[] cur = rows.get(key);
    RowOpType t = op.type();
    switch (t) {
      case INSERT:
        if (cur != null) {
          return StatusCode.ALREADY_PRESENT;
        }
        rows.put(key, fresh(op));
        return null;
      case UPSERT:
        rows.put(key, cur == null ? fresh(op) : updated(cur, op));
        return null;
      case UPDATE:
        if (cur == null) {
          return StatusCode.NOT_FOUND;
        }
        rows.put(key, updated(cur, op));
        return null;
      case DELETE:
        if (cur == null) {
          return StatusCode.NOT_FOUND;
        }
        rows.remove(key);
        return null;
      default:
        throw new AssertionError(t);
    }
  }

  private Object[] fresh(Op op) {
    Object[] r = new Object[schema.columnCount()];
    for (int i = 0; i < r.length; i++) {
      r[i] = op.row().isSet(i) ? op.row().get(i) : schema.column(i).defaultValue();
    }
    return r;
  }

  private Object[] updated(Object[] cur, Op op) {
    Object[] r = cur.clone();
    for (int i = 1; i < r.length; i++) {
      if (op.row().isSet(i)) {
        r[i] = op.row().get(i);
      }
    }
    return r;
  }

  /** Moves every row (and each saved snapshot) to {@code next}, matching columns by id. */
  void alter(Schema next, List<TreeMap<Integer, Object[]>> saved) {
    rows = convert(rows, next);
    for (int i = 0; i < saved.size(); i++) {
      saved.set(i, convert(saved.get(i), next));
    }
    schema = next;
  }

  private TreeMap<Integer, Object[]> convert(TreeMap<Integer, Object[]> in, Schema next) {
    TreeMap<Integer, Object[]> out = new TreeMap<>();
    for (Map.Entry<Integer, Object[]> e : in.entrySet()) {
      Object[] r = new Object[next.columnCount()];
      for (int i = 0; i < r.length; i++) {
        ColumnSchema c = next.column(i);
        int old = indexOfId(schema, c.id());
        r[i] = old >= 0 ? e.getValue()[old] : c.defaultValue();
      }
      out.put(e.getKey(), r);
    }
    return out;
  }

  private static int indexOfId(Schema s, int id) {
    for (int i = 0; i < s.columnCount(); i++) {
      if (s.column(i).id() == id) {
        return i;
      }
    }
    return -1;
  }

  /** Rows as lists (arrays compare by identity), in key order. */
  public static List<List<Object>> asLists(Iterable<Object[]> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] r : rows) {
      List<Object> l = new ArrayList<>();
      for (Object o : r) {
        l.add(o instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : o);
      }
      out.add(l);
    }
    return out;
  }
}
