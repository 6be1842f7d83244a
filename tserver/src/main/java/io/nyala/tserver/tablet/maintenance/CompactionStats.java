package io.nyala.tserver.tablet.maintenance;

import io.nyala.tserver.tablet.maintenance.CompactionResult.Kind;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Running totals of compactions (for the metrics page): how many of each kind, and the rowsets,
 * layers and bytes they read and wrote. Thread-safe; each figure only grows.
 */
public final class CompactionStats {
  /** A total that has an input and an output side. */
  public enum Figure { ROWSETS, LAYERS, BYTES }

  private final Map<Kind, AtomicLong> byKind = new EnumMap<>(Kind.class);
  private final Map<Figure, AtomicLong> in = new EnumMap<>(Figure.class);
  private final Map<Figure, AtomicLong> out = new EnumMap<>(Figure.class);

  public CompactionStats() {
    for (Kind k : Kind.values()) {
      byKind.put(k, new AtomicLong());
    }
    for (Figure f : Figure.values()) {
      in.put(f, new AtomicLong());
      out.put(f, new AtomicLong());
    }
  }

  /** Counts {@code r}; null (no compaction) counts nothing. */
  void add(CompactionResult r) {
    if (r == null) {
      return;
    }
    byKind.get(r.kind()).incrementAndGet();
    in.get(Figure.ROWSETS).addAndGet(r.rowsetsIn());
    out.get(Figure.ROWSETS).addAndGet(r.rowsetsOut());
    in.get(Figure.LAYERS).addAndGet(r.layersIn());
    out.get(Figure.LAYERS).addAndGet(r.layersOut());
    in.get(Figure.BYTES).addAndGet(r.bytesIn());
    out.get(Figure.BYTES).addAndGet(r.bytesOut());
  }

  public long total() {
    return byKind.values().stream().mapToLong(AtomicLong::get).sum();
  }

  public long count(Kind k) {
    return byKind.get(k).get();
  }

  /** The figure over the compactions' inputs. */
  public long in(Figure f) {
    return in.get(f).get();
  }

  /** The figure over the compactions' outputs. */
  public long out(Figure f) {
    return out.get(f).get();
  }
}
