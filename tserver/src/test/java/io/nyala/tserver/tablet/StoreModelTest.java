package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.StatusCode;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.tablet.maintenance.CompactionPolicy;
import io.nyala.tserver.tablet.maintenance.CompactionResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store matches its model: a seeded random workload of row operations, flushes, compactions
 * (forced, and picked by random small policies: rowset merges, minor and major delta compactions),
 * schema changes and restarts (reopen from the superblock, then replay what came after its durable
 * index, as Ratis does) always scans to exactly what {@link StoreModel} holds, at the newest state
 * and at pinned older snapshots. A failure names its seed; {@code -Dmodel.seed=N} reruns one seed,
 * {@code -Dmodel.ops=N} changes the length.
 */
@Timeout(60)
class StoreModelTest {
  private static final int KEYS = 60;
  @TempDir Path dir;
  private final Map<CompactionResult.Kind, Integer> compactions =
      new EnumMap<>(CompactionResult.Kind.class);

  /** One logged Raft entry: a write batch or a schema change. */
  private record Entry(long index, Schema writeSchema, List<Op> ops, Schema alter) {}

  @Test
  void randomWorkloadsMatchTheModel() {
    String one = System.getProperty("model.seed");
    int ops = Integer.getInteger("model.ops", 300);
    long[] seeds = one != null ? new long[] {Long.parseLong(one)} : new long[] {1, 2, 3, 4};
    for (long seed : seeds) {
      try {
        run(seed, ops, dir.resolve("seed-" + seed));
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("model test failed with seed " + seed
            + " (rerun with -Dmodel.seed=" + seed + "): " + e.getMessage(), e);
      }
    }
    if (one == null) {
      // The default seeds exercise every kind of policy compaction.
      assertThat(compactions).as("policy compactions by kind")
          .containsOnlyKeys(CompactionResult.Kind.values());
    }
  }

  private void run(long seed, int steps, Path d) {
    Random rnd = new Random(seed);
    Schema schema = new Schema(List.of(
        new ColumnSchema("id", Type.INT32, true, false, null, 1),
        new ColumnSchema("a", Type.STRING, false, true, null, 2),
        new ColumnSchema("b", Type.INT64, false, true, 5L, 3)), 0);
    StoreModel model = new StoreModel(schema);
    List<Entry> log = new ArrayList<>();
    List<Long> pinned = new ArrayList<>();
    List<TreeMap<Integer, Object[]>> saved = new ArrayList<>();
    int[] nextId = {10};
    try (StoreFixture fx = new StoreFixture(d, io.nyala.common.env.Env.plain(), false, schema)) {
      for (int step = 0; step < steps; step++) {
        int dice = rnd.nextInt(100);
        if (dice < 68) {
          writeBatch(fx, model, log, rnd);
        } else if (dice < 75) {
          fx.store.flush();
        } else if (dice < 77) {
          fx.store.compact();
        } else if (dice < 81) {
          CompactionResult r = fx.store.compactIfNeeded(randomPolicy(rnd));
          if (r != null) {
            compactions.merge(r.kind(), 1, Integer::sum);
          }
        } else if (dice < 84) {
          Schema next = alter(model.schema, rnd, nextId);
          fx.alter(next);
          log.add(new Entry(fx.index, null, null, next));
          model.alter(next, saved);
        } else if (dice < 87) {
          restart(fx, log);
          pinned.clear();
          saved.clear();
        } else if (dice < 92 && pinned.size() < 3) {
          pinned.add(fx.store.pinLatest(0));
          saved.add(new TreeMap<>(model.rows));
        } else if (!pinned.isEmpty()) {
          fx.store.unpin(pinned.remove(0));
          saved.remove(0);
        }
        check(fx, model, pinned, saved, rnd);
      }
    }
  }

  /** Small budgets and thresholds, so that every kind of compaction runs on a small tablet. */
  private static CompactionPolicy randomPolicy(Random rnd) {
    double[] ratios = {0, 0.5, 1000};
    return new CompactionPolicy(1024L << rnd.nextInt(7), 2 + rnd.nextInt(3), 2 + rnd.nextInt(3),
        ratios[rnd.nextInt(ratios.length)], rnd.nextBoolean() ? 1 : 1 << 20);
  }

  private static void writeBatch(StoreFixture fx, StoreModel model, List<Entry> log,
      Random rnd) {
    List<Op> ops = new ArrayList<>();
    int n = 1 + rnd.nextInt(5);
    for (int i = 0; i < n; i++) {
      RowOpType t = switch (rnd.nextInt(4)) {
        case 0 -> RowOpType.INSERT;
        case 1 -> RowOpType.UPSERT;
        case 2 -> RowOpType.UPDATE;
        default -> RowOpType.DELETE;
      };
      ops.add(op(model.schema, t, rnd));
    }
    List<StatusCode> expected = new ArrayList<>();
    for (Op op : ops) {
      expected.add(model.apply(op));
    }
    List<RowOpError> errs = fx.apply(model.schema, ops);
    log.add(new Entry(fx.index, model.schema, ops, null));
    List<StatusCode> actual = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      actual.add(null);
    }
    errs.forEach(e -> actual.set(e.rowIndex(), e.error().code()));
    assertThat(actual).as("per-row results at index %d", fx.index).isEqualTo(expected);
  }

  private static Op op(Schema s, RowOpType t, Random rnd) {
    PartialRow r = s.newPartialRow().addInt("id", rnd.nextInt(KEYS));
    if (t != RowOpType.DELETE) {
      for (int c = 1; c < s.columnCount(); c++) {
        if (t == RowOpType.INSERT || rnd.nextBoolean()) {
          ColumnSchema col = s.column(c);
          Object v = rnd.nextInt(5) == 0 ? null : value(col.type(), rnd);
          if (v == null) {
            r.setNull(col.name());
          } else {
            r.addObject(col.name(), v);
          }
        }
      }
    }
    return new Op(t, r);
  }

  private static Object value(Type t, Random rnd) {
    return switch (t) {
      case STRING -> "s" + rnd.nextInt(1000);
      case INT64 -> rnd.nextLong();
      case BOOL -> rnd.nextBoolean();
      case DOUBLE -> rnd.nextDouble();
      case BINARY -> new byte[] {(byte) rnd.nextInt(), (byte) rnd.nextInt()};
      default -> rnd.nextInt();
    };
  }

  /** Adds, drops or renames a non-key column; ids are never reused. */
  private static Schema alter(Schema s, Random rnd, int[] nextId) {
    List<ColumnSchema> cols = new ArrayList<>(s.columns());
    int choice = rnd.nextInt(3);
    if (choice == 0 || cols.size() <= 2) {
      Type[] types = {Type.STRING, Type.INT64, Type.BOOL, Type.DOUBLE, Type.BINARY, Type.INT32};
      Type t = types[rnd.nextInt(types.length)];
      Object def = rnd.nextBoolean() ? null : value(t, rnd);
      int id = nextId[0]++;
      cols.add(new ColumnSchema("c" + id, t, false, true, def, id));
    } else if (choice == 1) {
      cols.remove(1 + rnd.nextInt(cols.size() - 1));
    } else {
      int i = 1 + rnd.nextInt(cols.size() - 1);
      cols.set(i, cols.get(i).withName("r" + nextId[0]++));
    }
    return new Schema(cols, s.version() + 1);
  }

  /** Close, reopen from the superblock, replay the log after its durable index. */
  private static void restart(StoreFixture fx, List<Entry> log) {
    fx.restart();
    long durable = fx.store.durableIndex();
    assertThat(fx.store.lastAppliedIndex()).isEqualTo(durable);
    for (Entry e : log) {
      if (e.index() <= durable) {
        continue;
      }
      if (e.alter() != null) {
        fx.store.alterSchema(e.alter(), e.index());
      } else {
        fx.store.apply(e.writeSchema(), e.ops(), e.index());
      }
      fx.store.markApplied(1, e.index());
    }
  }

  private static void check(StoreFixture fx, StoreModel model, List<Long> pinned,
      List<TreeMap<Integer, Object[]>> saved, Random rnd) {
    assertThat(fx.store.schema().toPb()).isEqualTo(model.schema.toPb());
    int page = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(7) : 1000;
    assertThat(StoreModel.asLists(scan(fx, model.schema, fx.index, page)))
        .as("rows at index %d", fx.index).isEqualTo(StoreModel.asLists(model.rows.values()));
    assertThat(fx.store.liveRowCount()).isEqualTo(model.rows.size());
    for (int i = 0; i < pinned.size(); i++) {
      assertThat(StoreModel.asLists(scan(fx, model.schema, pinned.get(i), page)))
          .as("rows at pinned snapshot %d", pinned.get(i))
          .isEqualTo(StoreModel.asLists(saved.get(i).values()));
    }
  }

  private static List<Object[]> scan(StoreFixture fx, Schema schema, long snapshot, int page) {
    TabletScanSpec spec = TabletScanSpec.of(schema, List.of(), List.of(), null, null, snapshot);
    List<Object[]> out = new ArrayList<>();
    byte[] after = null;
    ScanPage p;
    do {
      p = fx.store.scan(spec, after, page);
      out.addAll(p.rows());
      after = p.lastKey();
    } while (p.hasMore());
    return out;
  }
}
