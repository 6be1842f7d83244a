package io.nyala.tserver.tablet.rowset;

import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads rows written under any older schema as rows of {@link #target()}: columns are matched by
 * id (by name when the ids are unassigned, 0), so renames keep their data; a column the old
 * schema lacks reads as its default (or null), and dropped columns simply are not read.
 */
public final class Projection {
  private final Schema target;
  /** Source schema → position in it of each target column (-1 = absent). */
  private final ConcurrentHashMap<Schema, int[]> maps = new ConcurrentHashMap<>();
  /**
   * Source schemas already looked up, by identity, with their maps: each layer's rows come in
   * one schema instance, and hashing or comparing a schema per row was a large share of a scan
   * page's time (docs/performance.md, "Scans"). Copy-on-write; a tablet has few layers, and past
   * {@link #KNOWN_MAX} the array starts over.
   */
  private volatile Mapping[] known = new Mapping[0];
  private static final int KNOWN_MAX = 32;

  /** A source schema and its map (null: identical to the target). */
  private record Mapping(Schema from, int[] map) {}

  public Projection(Schema target) {
    this.target = target;
  }

  public Schema target() {
    return target;
  }

  /** {@code row} (in {@code from}) as a row of the target schema; same array when identical. */
  public Object[] project(Schema from, Object[] row) {
    if (row == null || from == target) {
      return row;
    }
    int[] map = mapOf(from);
    if (map == null) {
      return row;
    }
    Object[] out = new Object[map.length];
    for (int i = 0; i < map.length; i++) {
      out[i] = map[i] >= 0 ? row[map[i]] : target.column(i).defaultValue();
    }
    return out;
  }

  private int[] mapOf(Schema from) {
    Mapping[] ms = known;
    for (Mapping m : ms) {
      if (m.from() == from) {
        return m.map();
      }
    }
    int[] map = from.equals(target) ? null : maps.computeIfAbsent(from, this::mapFrom);
    Mapping[] next = ms.length >= KNOWN_MAX ? new Mapping[1] : Arrays.copyOf(ms, ms.length + 1);
    next[next.length - 1] = new Mapping(from, map);
    known = next;
    return map;
  }

  /** Versions of {@code from} as versions of the target schema. */
  public RowVersions.Version[] project(Schema from, RowVersions.Version[] vs) {
    if (from == target || from.equals(target)) {
      return vs;
    }
    RowVersions.Version[] out = new RowVersions.Version[vs.length];
    for (int i = 0; i < vs.length; i++) {
      out[i] = new RowVersions.Version(vs[i].index(), project(from, vs[i].row()));
    }
    return out;
  }

  private int[] mapFrom(Schema from) {
    int[] map = new int[target.columnCount()];
    boolean identity = from.columnCount() == map.length;
    for (int i = 0; i < map.length; i++) {
      map[i] = indexOf(from, target.column(i));
      identity &= map[i] == i;
    }
    return identity ? null : map;
  }

  /**
   * The position in {@code from} of column {@code c} of another version of the schema (same id,
   * or same name when ids are unassigned, and same type), or -1 if {@code from} lacks it.
   */
  public static int indexOf(Schema from, ColumnSchema c) {
    for (int j = 0; j < from.columnCount(); j++) {
      ColumnSchema f = from.column(j);
      boolean same = c.id() != 0 && f.id() != 0 ? c.id() == f.id() : c.name().equals(f.name());
      if (same && f.type() == c.type()) {
        return j;
      }
    }
    return -1;
  }
}
