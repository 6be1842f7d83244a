package io.nyala.client;

import io.nyala.client.locations.RemoteTablet;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Skips tablets a scan cannot match: when EQUAL or IN predicates pin every column of a hash
 * dimension to a few values, only the buckets those values hash to can hold matching rows.
 * Dimensions without such predicates, or with too many value combinations to hash, allow every
 * bucket. Tablets whose range partition the predicates exclude are skipped too
 * ({@link RangePruning}). Immutable.
 */
final class PartitionPruner {
  /** Above this many value combinations a dimension is not worth hashing out. */
  private static final int MAX_COMBINATIONS = 4096;

  /** Per hash dimension: the buckets that may match, or null for all. */
  private final List<Set<Integer>> allowed;
  private final RangePruning ranges;

  private PartitionPruner(List<Set<Integer>> allowed, RangePruning ranges) {
    this.allowed = allowed;
    this.ranges = ranges;
  }

  /**
   * A pruner for a scan.
   *
   * @param schema the table's schema
   * @param ps the table's partitioning
   * @param predicates the scan's predicates, bound to the schema
   * @return the pruner
   */
  static PartitionPruner create(Schema schema, PartitionSchema ps,
      List<ColumnPredicate> predicates) {
    List<Set<Integer>> allowed = new ArrayList<>();
    for (int d = 0; d < ps.dimensions().size(); d++) {
      allowed.add(bucketsOf(schema, ps, d, predicates));
    }
    return new PartitionPruner(allowed, RangePruning.create(ps.rangeSchema(), predicates));
  }

  private static Set<Integer> bucketsOf(Schema schema, PartitionSchema ps, int d,
      List<ColumnPredicate> predicates) {
    List<String> cols = ps.dimensions().get(d).columns();
    List<List<Object>> values = new ArrayList<>();
    long combinations = 1;
    for (String c : cols) {
      List<Object> vs = pinnedValues(schema.column(c).type(), c, predicates);
      if (vs == null) {
        return null;
      }
      values.add(vs);
      combinations *= vs.size();
      if (combinations > MAX_COMBINATIONS) {
        return null;
      }
    }
    Set<Integer> buckets = new HashSet<>();
    Object[] row = new Object[schema.columnCount()];
    addBuckets(schema, ps, d, cols, values, 0, row, buckets);
    return buckets;
  }

  private static void addBuckets(Schema schema, PartitionSchema ps, int d, List<String> cols,
      List<List<Object>> values, int i, Object[] row, Set<Integer> out) {
    if (i == cols.size()) {
      out.add(ps.bucket(d, row));
      return;
    }
    int idx = schema.columnIndex(cols.get(i));
    for (Object v : values.get(i)) {
      row[idx] = v;
      addBuckets(schema, ps, d, cols, values, i + 1, row, out);
    }
  }

  /** The values EQUAL / IN predicates allow a column (their intersection), or null if any. */
  private static List<Object> pinnedValues(Type t, String column,
      List<ColumnPredicate> predicates) {
    List<Object> result = null;
    for (ColumnPredicate p : predicates) {
      if (!p.column().equals(column)) {
        continue;
      }
      List<Object> vs = switch (p.op()) {
        case EQUAL -> List.of(p.value());
        case IN_LIST -> p.inValues();
        default -> null;
      };
      if (vs == null) {
        continue;
      }
      if (result == null) {
        result = new ArrayList<>(vs);
      } else {
        result.removeIf(a -> vs.stream().noneMatch(b -> t.valueEquals(a, b)));
      }
    }
    return result;
  }

  /**
   * @param tablet a tablet of the table
   * @return whether no row of the tablet can match
   */
  boolean prunes(RemoteTablet tablet) {
    if (ranges.excludes(tablet.range())) {
      return true;
    }
    for (int d = 0; d < allowed.size(); d++) {
      Set<Integer> ok = allowed.get(d);
      if (ok == null) {
        continue;
      }
      Integer bucket = bucketOf(tablet, d);
      if (bucket != null && !ok.contains(bucket)) {
        return true;
      }
    }
    return false;
  }

  /** The tablet's bucket in dimension d: sent by the master, or the d-th int of its start key. */
  private static Integer bucketOf(RemoteTablet tablet, int d) {
    if (tablet.hashBuckets().size() > d) {
      return tablet.hashBuckets().get(d);
    }
    byte[] start = tablet.partitionKeyStart();
    if (start.length >= 4 * (d + 1)) {
      return ByteBuffer.wrap(start, 4 * d, 4).getInt();
    }
    return null;
  }
}
