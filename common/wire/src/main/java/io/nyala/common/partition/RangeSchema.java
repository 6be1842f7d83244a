package io.nyala.common.partition;

import io.nyala.common.NyalaException;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * The range columns of a table: which key columns, in which order, make a row's range key (their
 * key encoding, see {@link KeyEncoder}), and how bounds and range keys are built and shown.
 * Immutable. Which ranges exist is the {@link PartitionSchema}'s business.
 */
public final class RangeSchema {
  private final List<String> columns;
  private final int[] indexes;
  private final List<ColumnSchema> columnSchemas;

  /**
   * Range columns over a schema.
   *
   * @param columns distinct key columns of {@code schema}; empty for no range partitioning
   * @param schema the table's schema
   * @throws NyalaException INVALID_ARGUMENT naming a column not in the key or used twice
   */
  public RangeSchema(List<String> columns, Schema schema) {
    this.columns = List.copyOf(columns);
    this.indexes = new int[columns.size()];
    List<ColumnSchema> cs = new ArrayList<>();
    Set<String> used = new HashSet<>();
    for (int i = 0; i < columns.size(); i++) {
      String name = columns.get(i);
      if (!schema.hasColumn(name)) {
        throw NyalaException.invalidArgument(
            "range partition column '%s' is not in the schema", name);
      }
      int idx = schema.columnIndex(name);
      if (!schema.column(idx).key()) {
        throw NyalaException.invalidArgument(
            "range partition column '%s' is not a primary key column", name);
      }
      if (!used.add(name)) {
        throw NyalaException.invalidArgument("range partition column '%s' is used twice", name);
      }
      indexes[i] = idx;
      cs.add(schema.column(idx));
    }
    this.columnSchemas = List.copyOf(cs);
  }

  /** @return the range columns' names, in encoding order */
  public List<String> columns() {
    return columns;
  }

  /** @return the range columns, in encoding order */
  public List<ColumnSchema> columnSchemas() {
    return columnSchemas;
  }

  /** @return whether the table is range partitioned */
  public boolean isEmpty() {
    return columns.isEmpty();
  }

  /** The range key of a row given as values in schema order (empty without range columns). */
  public byte[] rangeKey(Object[] row) {
    if (columns.isEmpty()) {
      return new byte[0];
    }
    return KeyEncoder.encode(columnSchemas, rangeValues(row));
  }

  private Object[] rangeValues(Object[] row) {
    Object[] vals = new Object[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      vals[i] = row[indexes[i]];
    }
    return vals;
  }

  /**
   * The encoding of a range bound: all range columns set, or none (unbounded, empty).
   *
   * @param bound a row of the table's schema with only range columns set
   * @param what what the row is, for errors ("lower bound", "split row")
   * @return the bound's range key, empty when no column is set
   * @throws NyalaException INVALID_ARGUMENT naming the column set or missing
   */
  public byte[] encodeBound(PartialRow bound, String what) {
    Schema schema = bound.schema();
    int setRange = 0;
    for (int i = 0; i < schema.columnCount(); i++) {
      if (!bound.isSet(i)) {
        continue;
      }
      String name = schema.column(i).name();
      if (!columns.contains(name)) {
        throw NyalaException.invalidArgument(
            "%s sets column '%s', which is not a range partition column", what, name);
      }
      if (bound.isNull(i)) {
        throw NyalaException.invalidArgument("%s sets range column '%s' to null", what, name);
      }
      setRange++;
    }
    if (setRange == 0) {
      return new byte[0];
    }
    for (int i = 0; i < indexes.length; i++) {
      if (!bound.isSet(indexes[i])) {
        throw NyalaException.invalidArgument("%s %s leaves range column '%s' unset: set every "
            + "range column or none (unbounded)", what, bound, columns.get(i));
      }
    }
    return KeyEncoder.encode(columnSchemas, rangeValues(bound.valuesUnsafe()));
  }

  /** Shows a range key as its values, {@code (day=3)}; an empty key as {@code unbounded}. */
  public String format(byte[] rangeKey) {
    if (rangeKey.length == 0) {
      return "unbounded";
    }
    Object[] vals;
    try {
      vals = KeyEncoder.decode(columnSchemas, rangeKey);
    } catch (RuntimeException e) {
      return "0x" + HexFormat.of().formatHex(rangeKey);
    }
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < vals.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(columns.get(i)).append('=');
      sb.append(vals[i] instanceof byte[] b ? Arrays.toString(b) : String.valueOf(vals[i]));
    }
    return sb.append(')').toString();
  }

  /** Shows a range as {@code [(day=1), (day=2))}. */
  public String format(RangeBounds r) {
    return "[" + format(r.lower()) + ", " + format(r.upper()) + ")";
  }

  /** Shows a row's range column values, {@code (day=3)}, for errors. */
  public String formatRow(Object[] row) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < indexes.length; i++) {
      Object v = row[indexes[i]];
      sb.append(i == 0 ? "" : ", ").append(columns.get(i)).append('=');
      sb.append(v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v));
    }
    return sb.append(')').toString();
  }

  /**
   * Sorts ranges and checks they are disjoint.
   *
   * @param ranges the ranges, in any order
   * @return the ranges by lower bound
   * @throws NyalaException INVALID_ARGUMENT naming two overlapping ranges
   */
  public List<RangeBounds> sortedDisjoint(List<RangeBounds> ranges) {
    List<RangeBounds> sorted = new ArrayList<>(ranges);
    sorted.sort(RangeBounds::compareLower);
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i - 1).overlaps(sorted.get(i))) {
        throw NyalaException.invalidArgument("range partition %s overlaps range partition %s",
            format(sorted.get(i - 1)), format(sorted.get(i)));
      }
    }
    return sorted;
  }

  /**
   * Splits ranges at split keys, as CreateTable's split rows do.
   *
   * @param ranges disjoint ranges
   * @param splits range keys, each strictly inside one range (not its lower bound)
   * @return the split ranges
   * @throws NyalaException INVALID_ARGUMENT naming a split outside every range or on a bound
   */
  public List<RangeBounds> split(List<RangeBounds> ranges, List<byte[]> splits) {
    List<RangeBounds> out = new ArrayList<>(ranges);
    for (byte[] s : splits) {
      if (s.length == 0) {
        throw NyalaException.invalidArgument("a split row must set every range column");
      }
      RangeBounds in = out.stream().filter(r -> r.contains(s)).findFirst().orElse(null);
      if (in == null || Arrays.equals(in.lower(), s)) {
        throw NyalaException.invalidArgument("split row %s is %s", format(s),
            in == null ? "outside every range partition" : "a range partition's bound");
      }
      out.remove(in);
      out.add(new RangeBounds(in.lower(), s));
      out.add(new RangeBounds(s, in.upper()));
    }
    return sortedDisjoint(out);
  }
}
