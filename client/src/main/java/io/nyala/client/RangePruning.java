package io.nyala.client;

import io.nyala.common.partition.RangeBounds;
import io.nyala.common.partition.RangeSchema;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import java.util.Arrays;
import java.util.List;

/**
 * The range keys a scan's predicates allow, from the predicates on the first range column
 * (docs/architecture.md, "Partitioning"): EQUAL, IN and comparisons bound that column's value,
 * hence the range keys, to {@code [lower, upper)}. Conservative: it only ever allows more. It
 * looks only at an integer first column (fixed width, so its encoding is a prefix of the range
 * key) or a string/binary column that is the only range column (encoded raw). Immutable.
 */
final class RangePruning {
  /** Allows every range key. */
  static final RangePruning ALL = new RangePruning(null, null);

  /** Inclusive; null = unbounded. */
  private final byte[] lower;
  /** Exclusive; null = unbounded. */
  private final byte[] upper;

  private RangePruning(byte[] lower, byte[] upper) {
    this.lower = lower;
    this.upper = upper;
  }

  /**
   * @param rs the table's range columns
   * @param predicates the scan's predicates, bound to the schema
   * @return what the predicates allow
   */
  static RangePruning create(RangeSchema rs, List<ColumnPredicate> predicates) {
    if (rs.isEmpty()) {
      return ALL;
    }
    ColumnSchema c = rs.columnSchemas().get(0);
    Type t = c.type();
    if (t.fixedSize() < 0 && rs.columns().size() > 1) {
      return ALL;
    }
    byte[] lower = null;
    byte[] upper = null;
    for (ColumnPredicate p : predicates) {
      if (!p.column().equals(c.name())) {
        continue;
      }
      switch (p.op()) {
        case EQUAL -> {
          lower = max(lower, enc(c, p.value()));
          upper = min(upper, prefixSuccessor(enc(c, p.value())));
        }
        case GREATER_EQUAL -> lower = max(lower, enc(c, p.value()));
        // Fixed width: the next prefix; a sole string column: the next string.
        case GREATER -> lower = max(lower, t.fixedSize() > 0 ? prefixSuccessor(enc(c, p.value()))
            : Arrays.copyOf(enc(c, p.value()), enc(c, p.value()).length + 1));
        case LESS -> upper = min(upper, enc(c, p.value()));
        case LESS_EQUAL -> upper = min(upper, prefixSuccessor(enc(c, p.value())));
        case IN_LIST -> {
          if (!p.inValues().isEmpty()) {
            Object lo = p.inValues().stream().reduce((a, b) -> t.compare(a, b) <= 0 ? a : b).get();
            Object hi = p.inValues().stream().reduce((a, b) -> t.compare(a, b) >= 0 ? a : b).get();
            lower = max(lower, enc(c, lo));
            upper = min(upper, prefixSuccessor(enc(c, hi)));
          }
        }
        default -> { }
      }
    }
    return lower == null && upper == null ? ALL : new RangePruning(lower, upper);
  }

  private static byte[] enc(ColumnSchema c, Object v) {
    return KeyEncoder.encode(List.of(c), new Object[] {v});
  }

  /** The larger bound; null (none) loses. */
  private static byte[] max(byte[] a, byte[] b) {
    return a == null || (b != null && Arrays.compareUnsigned(b, a) > 0) ? b : a;
  }

  /** The smaller bound; null (none) loses. */
  private static byte[] min(byte[] a, byte[] b) {
    return a == null || (b != null && Arrays.compareUnsigned(b, a) < 0) ? b : a;
  }

  /** The smallest key above every key that starts with {@code p}, or null if none. */
  static byte[] prefixSuccessor(byte[] p) {
    for (int i = p.length - 1; i >= 0; i--) {
      if (p[i] != (byte) 0xff) {
        byte[] out = Arrays.copyOf(p, i + 1);
        out[i]++;
        return out;
      }
    }
    return null;
  }

  /**
   * @param range a tablet's range partition, or null if unknown
   * @return whether no range key the predicates allow lies in it
   */
  boolean excludes(RangeBounds range) {
    if (range == null) {
      return false;
    }
    if (lower != null && upper != null && Arrays.compareUnsigned(lower, upper) >= 0) {
      return true;
    }
    byte[] rl = range.lower();
    byte[] ru = range.upper();
    boolean endsBefore = lower != null && ru.length > 0 && Arrays.compareUnsigned(ru, lower) <= 0;
    boolean startsAfter = upper != null && Arrays.compareUnsigned(rl, upper) >= 0;
    return endsBefore || startsAfter;
  }
}
