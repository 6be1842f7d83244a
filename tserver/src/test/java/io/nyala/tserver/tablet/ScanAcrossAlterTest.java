package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scan whose pages straddle ALTERs, flushes and compactions reads exactly its snapshot's rows
 * with the projection and predicates it was opened with (by column id); a column it reads that
 * is dropped meanwhile fails it with ILLEGAL_STATE naming the column.
 */
@Timeout(30)
class ScanAcrossAlterTest {
  static final ColumnSchema ID = new ColumnSchema("id", Type.INT32, true, false, null, 1);
  static final ColumnSchema A = new ColumnSchema("a", Type.STRING, false, true, null, 2);
  static final ColumnSchema B = new ColumnSchema("b", Type.INT64, false, true, 5L, 3);
  static final ColumnSchema D = new ColumnSchema("d", Type.STRING, false, true, null, 4);
  static final ColumnSchema C = new ColumnSchema("c", Type.INT32, false, true, 42, 5);
  static final Schema V0 = new Schema(List.of(ID, A, B, D), 0);
  /** a renamed to a2, c added. */
  static final Schema V1 = new Schema(List.of(ID, A.withName("a2"), B, D, C), 1);
  /** d dropped. */
  static final Schema V2 = new Schema(List.of(ID, A.withName("a2"), B, C), 2);
  /** b dropped. */
  static final Schema V3 = new Schema(List.of(ID, A.withName("a2"), C), 3);
  @TempDir Path dir;

  @Test
  void renamesAddsAndUnreadDropsBetweenPagesKeepTheOpenTimeProjection() {
    try (StoreFixture fx = StoreFixture.plain(dir, V0)) {
      writeHistory(fx);
      long snap = fx.store.pinLatest(0);
      // Predicates on a column renamed later and on one the projection leaves out.
      TabletScanSpec spec = TabletScanSpec.of(V0, List.of("a", "id"), List.of(
          ColumnPredicate.comparison("a", ColumnPredicate.Op.GREATER_EQUAL, "a-2"),
          ColumnPredicate.comparison("b", ColumnPredicate.Op.LESS, 30L)), null, null, snap);
      List<Runnable> between = List.of(
          () -> fx.alter(V1),
          () -> fx.apply(V1, laterWrites(V1, "a2")),
          () -> fx.store.flush(),
          () -> fx.alter(V2),
          () -> fx.store.compact(),
          () -> fx.apply(V2, laterWrites(V2, "a2")),
          () -> fx.store.flush(),
          () -> fx.store.compact());
      List<List<Object>> rows = StoreModel.asLists(scanInPages(fx, spec, null, 2, between));

      // a ≥ "a-2" (as strings) and b = key < 30: keys 2..9 and 20..29. Every later write
      // (a = "later-…", b = 1; key 25000) would pass both, had it leaked into the snapshot.
      List<List<Object>> expected = new ArrayList<>();
      for (int k = 2; k < 30; k++) {
        if (k < 10 || k >= 20) {
          expected.add(List.of("a-" + k, k));
        }
      }
      assertThat(rows).containsExactlyElementsOf(expected);
      assertThat(spec.projection().columns()).extracting(ColumnSchema::name)
          .containsExactly("a", "id");
      fx.store.unpin(snap);
    }
  }

  @Test
  void aDroppedColumnTheScanReadsFailsItNamingColumnAndVersions() {
    try (StoreFixture fx = StoreFixture.plain(dir, V0)) {
      writeHistory(fx);
      long snap = fx.store.pinLatest(0);
      TabletScanSpec projects =
          TabletScanSpec.of(V0, List.of("id", "b"), List.of(), null, null, snap);
      TabletScanSpec filters = TabletScanSpec.of(V0, List.of("id"),
          List.of(ColumnPredicate.isNotNull("b")), null, null, snap);
      TabletScanSpec other = TabletScanSpec.of(V0, List.of("id", "a"), List.of(), null, null, snap);
      ScanPage first = fx.store.scan(projects, null, 4);
      ScanPage firstFiltered = fx.store.scan(filters, null, 4);
      ScanPage firstOther = fx.store.scan(other, null, 4);
      fx.alter(V1);
      fx.alter(V2);
      fx.alter(V3);
      // No flush: the dropped values are still in memory, yet the outcome does not depend on it.
      for (TabletScanSpec s : List.of(projects, filters)) {
        ScanPage resumed = s == projects ? first : firstFiltered;
        assertThatThrownBy(() -> fx.store.scan(s, resumed.lastKey(), 4))
            .isInstanceOfSatisfying(NyalaException.class,
                e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE))
            .hasMessageContaining("tablet t1").hasMessageContaining("column 'b' (id 3)")
            .hasMessageContaining("schema version 0").hasMessageContaining("version 3");
      }
      // A scan that does not read b goes on; d and b are gone, a was renamed: all by id.
      List<List<Object>> rest = StoreModel.asLists(
          scanInPages(fx, other, firstOther.lastKey(), 4, List.of()));
      assertThat(rest).hasSize(34 - 4);
      assertThat(rest.get(0)).containsExactly(4, "a-4");
      fx.store.unpin(snap);
    }
  }

  @Test
  void aScanOpenedOnAnOlderSchemaThanItsSnapshotReadsRowsWrittenAfterTheAlter() {
    try (StoreFixture fx = StoreFixture.plain(dir, V0)) {
      writeHistory(fx);
      // Resolved against V0, as a scan whose spec was built just before an ALTER applied.
      fx.alter(V1);
      fx.apply(V1, List.of(new Op(RowOpType.INSERT,
          V1.newPartialRow().addInt("id", 100).addString("a2", "new").addInt("c", 1))));
      fx.store.flush();
      TabletScanSpec spec = TabletScanSpec.of(V0, List.of("id", "a", "b"), List.of(),
          key(100), null, fx.index);
      assertThat(StoreModel.asLists(scanInPages(fx, spec, null, 2, List.of())))
          .containsExactly(List.of(100, "new", 5L));
    }
  }

  /**
   * Keys 0..34 in two flushed layers, then an update of 12 and a delete of 15 in memory: the
   * snapshot spans disk and memory, base and delta layers.
   */
  static void writeHistory(StoreFixture fx) {
    fx.apply(V0, inserts(0, 20));
    fx.store.flush();
    fx.apply(V0, inserts(20, 35));
    fx.store.flush();
    fx.apply(V0, List.of(
        new Op(RowOpType.UPDATE,
            V0.newPartialRow().addInt("id", 12).addString("a", "a-12-updated")),
        new Op(RowOpType.DELETE, V0.newPartialRow().addInt("id", 15))));
  }

  private static List<Op> inserts(int from, int to) {
    List<Op> ops = new ArrayList<>();
    for (int k = from; k < to; k++) {
      ops.add(new Op(RowOpType.INSERT, V0.newPartialRow().addInt("id", k)
          .addString("a", "a-" + k).addLong("b", k).addString("d", "d-" + k)));
    }
    return ops;
  }

  /** Writes after the snapshot: none of them may show. */
  private static List<Op> laterWrites(Schema s, String aName) {
    List<Op> ops = new ArrayList<>();
    for (int k = 0; k < 35; k += 3) {
      ops.add(new Op(RowOpType.UPSERT, s.newPartialRow().addInt("id", k)
          .addString(aName, "later-" + k).addLong("b", 1L)));
    }
    ops.add(new Op(RowOpType.DELETE, s.newPartialRow().addInt("id", 20)));
    ops.add(new Op(RowOpType.INSERT, s.newPartialRow().addInt("id", 25_000)
        .addString(aName, "a-25000")));
    return ops;
  }

  private static byte[] key(int id) {
    return io.nyala.common.row.KeyEncoder.encode(V0.keyColumns(), new Object[] {id});
  }

  /**
   * Pages through {@code spec} from after {@code after} (null = the start), running the next of
   * {@code between} after each page; every step must have run by the end.
   */
  static List<Object[]> scanInPages(StoreFixture fx, TabletScanSpec spec, byte[] after,
      int pageRows,
      List<Runnable> between) {
    List<Object[]> out = new ArrayList<>();
    ScanPage p;
    int step = 0;
    do {
      p = fx.store.scan(spec, after, pageRows);
      out.addAll(p.rows());
      after = p.lastKey();
      if (step < between.size()) {
        between.get(step++).run();
      }
    } while (p.hasMore());
    assertThat(step).as("every step ran between two pages").isEqualTo(between.size());
    return out;
  }
}
