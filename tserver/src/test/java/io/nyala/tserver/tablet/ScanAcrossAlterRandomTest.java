package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random scans whose pages straddle writes, ALTERs (add, rename, drop), flushes and
 * compactions: each returns exactly the rows of its snapshot, in the projection and with the
 * predicate it was opened with, or ILLEGAL_STATE once a column it reads is dropped. The model
 * keeps rows by column id. A failure names its seed; {@code -Dscanalter.seed=N} reruns one.
 */
@Timeout(60)
class ScanAcrossAlterRandomTest {
  private static final ColumnSchema ID = new ColumnSchema("id", Type.INT32, true, false, null, 1);
  private static final int KEYS = 40;
  @TempDir Path dir;

  private Random rnd;
  private StoreFixture fx;
  private Schema schema;
  private int nextColumnId;
  /** Key → column id → value, at the newest state. */
  private TreeMap<Integer, Map<Integer, Object>> rows;
  /** Over all seeds: scans an ALTER straddled, and scans a drop of a column they read ended. */
  private int straddled;
  private int endedByDrop;

  @Test
  void randomScansAcrossAltersReturnTheirSnapshot() {
    String one = System.getProperty("scanalter.seed");
    long[] seeds = one != null ? new long[] {Long.parseLong(one)} : new long[] {1, 2, 3, 4, 5};
    for (long seed : seeds) {
      try (StoreFixture f = StoreFixture.plain(dir.resolve("seed-" + seed), initialSchema())) {
        run(seed, f);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("failed with seed " + seed + " (rerun with -Dscanalter.seed="
            + seed + "): " + e.getMessage(), e);
      }
    }
    if (one == null) {
      assertThat(straddled).as("scans straddling an ALTER").isGreaterThan(10);
      assertThat(endedByDrop).as("scans ended by a drop").isPositive();
    }
  }

  private static Schema initialSchema() {
    return new Schema(List.of(ID, column(2), column(3), column(4)), 0);
  }

  /** Nullable int64 columns whose default tells them apart. */
  private static ColumnSchema column(int id) {
    return new ColumnSchema("c" + id, Type.INT64, false, true, 1000L * id, id);
  }

  private void run(long seed, StoreFixture f) {
    rnd = new Random(seed);
    fx = f;
    schema = f.initialSchema;
    nextColumnId = 5;
    rows = new TreeMap<>();
    for (int i = 0; i < 30; i++) {
      step(Set.of());
    }
    for (int scan = 0; scan < 8; scan++) {
      scanOnce();
    }
  }

  private void scanOnce() {
    long snap = fx.store.pinLatest(0);
    List<String> names = new ArrayList<>();
    for (ColumnSchema c : schema.columns()) {
      if (c.key() || rnd.nextBoolean()) {
        names.add(c.name());
      }
    }
    Collections.shuffle(names, rnd);
    ColumnSchema filtered = schema.column(1 + rnd.nextInt(schema.columnCount() - 1));
    long bound = rnd.nextInt(60);
    List<ColumnPredicate> preds = rnd.nextBoolean() ? List.of()
        : List.of(ColumnPredicate.comparison(filtered.name(), ColumnPredicate.Op.LESS, bound));
    TabletScanSpec spec = TabletScanSpec.of(schema, names, preds, null, null, snap);
    List<List<Object>> expected = expected(spec, preds.isEmpty() ? -1 : filtered.id(), bound);
    Set<Integer> read = names.stream().map(n -> spec.schema().column(n).id())
        .collect(Collectors.toSet());
    if (!preds.isEmpty()) {
      read = union(read, filtered.id());
    }
    int version = schema.version();
    try {
      List<List<Object>> got = page(spec, read);
      straddled += schema.version() > version ? 1 : 0;
      if (got != null) {
        assertThat(got).as("scan of %s at %d", names, snap).isEqualTo(expected);
      }
    } finally {
      fx.store.unpin(snap);
    }
  }

  /** Pages through {@code spec}, changing the tablet between pages; null if a drop ended it. */
  private List<List<Object>> page(TabletScanSpec spec, Set<Integer> read) {
    List<Object[]> out = new ArrayList<>();
    byte[] after = null;
    ScanPage p;
    do {
      p = fx.store.scan(spec, after, 1 + rnd.nextInt(5));
      out.addAll(p.rows());
      after = p.lastKey();
      for (int n = rnd.nextInt(4); n > 0; n--) {
        step(read);
      }
      if (rnd.nextInt(25) == 0 && dropOneOf(read)) {
        byte[] resume = after;
        assertThatThrownBy(() -> fx.store.scan(spec, resume, 5))
            .isInstanceOfSatisfying(NyalaException.class,
                e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE))
            .hasMessageContaining("dropped");
        endedByDrop++;
        return null;
      }
    } while (p.hasMore());
    return StoreModel.asLists(out);
  }

  private List<List<Object>> expected(TabletScanSpec spec, int filteredId, long bound) {
    List<List<Object>> out = new ArrayList<>();
    rows.forEach((k, row) -> {
      Object v = filteredId < 0 ? null : row.get(filteredId);
      if (filteredId >= 0 && (v == null || (Long) v >= bound)) {
        return;
      }
      List<Object> r = new ArrayList<>();
      for (ColumnSchema c : spec.projection().columns()) {
        r.add(c.id() == ID.id() ? k : row.get(c.id()));
      }
      out.add(r);
    });
    return out;
  }

  /** One random change: a write batch, an ALTER (never dropping {@code keep}), flush, compact. */
  private void step(Set<Integer> keep) {
    int what = rnd.nextInt(10);
    if (what < 5) {
      write();
    } else if (what < 7) {
      alter(keep);
    } else if (what < 9) {
      fx.store.flush();
    } else {
      fx.store.compact();
    }
  }

  private void write() {
    List<Op> ops = new ArrayList<>();
    Set<Integer> keys = new HashSet<>();
    for (int n = 1 + rnd.nextInt(6); n > 0; n--) {
      int k = rnd.nextInt(KEYS);
      if (!keys.add(k)) {
        continue;
      }
      PartialRow r = schema.newPartialRow().addInt("id", k);
      if (rows.containsKey(k) && rnd.nextInt(4) == 0) {
        ops.add(new Op(RowOpType.DELETE, r));
        rows.remove(k);
        continue;
      }
      Map<Integer, Object> row = rows.computeIfAbsent(k, x -> defaults());
      for (ColumnSchema c : schema.columns()) {
        if (!c.key() && rnd.nextBoolean()) {
          Long v = rnd.nextInt(5) == 0 ? null : (long) rnd.nextInt(100);
          r.addObject(c.name(), v);
          row.put(c.id(), v);
        }
      }
      ops.add(new Op(RowOpType.UPSERT, r));
    }
    assertThat(fx.apply(schema, ops)).isEmpty();
  }

  private Map<Integer, Object> defaults() {
    Map<Integer, Object> row = new HashMap<>();
    for (ColumnSchema c : schema.columns()) {
      if (!c.key()) {
        row.put(c.id(), c.defaultValue());
      }
    }
    return row;
  }

  private void alter(Set<Integer> keep) {
    List<ColumnSchema> cols = new ArrayList<>(schema.columns());
    int i = 1 + rnd.nextInt(cols.size() - 1);
    int what = rnd.nextInt(3);
    if (what == 0 && cols.size() < 7) {
      ColumnSchema added = column(nextColumnId++);
      cols.add(added);
      rows.values().forEach(r -> r.put(added.id(), added.defaultValue()));
    } else if (what == 1) {
      ColumnSchema c = cols.get(i);
      cols.set(i, c.withName("r" + c.id() + "v" + (schema.version() + 1)));
    } else if (cols.size() > 2 && !keep.contains(cols.get(i).id())) {
      drop(cols, i);
    } else {
      return;
    }
    schema = new Schema(cols, schema.version() + 1);
    fx.alter(schema);
  }

  private void drop(List<ColumnSchema> cols, int i) {
    int id = cols.remove(i).id();
    rows.values().forEach(r -> r.remove(id));
  }

  /** Drops a column the scan reads, if one is not the key; true if it did. */
  private boolean dropOneOf(Set<Integer> read) {
    List<ColumnSchema> cols = new ArrayList<>(schema.columns());
    for (int i = 1; i < cols.size(); i++) {
      if (read.contains(cols.get(i).id()) && cols.size() > 2) {
        drop(cols, i);
        schema = new Schema(cols, schema.version() + 1);
        fx.alter(schema);
        return true;
      }
    }
    return false;
  }

  private static Set<Integer> union(Set<Integer> s, int id) {
    Set<Integer> out = new HashSet<>(s);
    out.add(id);
    return out;
  }
}
