package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.tablet.maintenance.CompactionPolicy;
import io.nyala.tserver.tablet.maintenance.CompactionResult;
import io.nyala.tserver.tablet.maintenance.CompactionResult.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A policy compaction rewrites the rowsets it chose and leaves every other one's blocks. */
@Timeout(60)
class IncrementalCompactionTest {
  @TempDir Path dir;

  private static void write(StoreFixture fx, RowOpType type, int from, int to, String prefix) {
    List<Op> ops = new ArrayList<>();
    for (int i = from; i < to; i++) {
      ops.add(new Op(type, RowSetLifecycleTest.SCHEMA.newPartialRow().addInt("id", i)
          .addString("v", prefix + i)));
    }
    assertThat(fx.apply(RowSetLifecycleTest.SCHEMA, ops)).isEmpty();
  }

  /** Rowset id → its on-disk layers' block ids, as the superblock lists them. */
  private static Map<Long, List<List<BlockId>>> layout(StoreFixture fx) {
    Map<Long, List<List<BlockId>>> out = new HashMap<>();
    for (Superblock.RowSetEntry e : fx.store.durableState().rowsets()) {
      out.put(e.id(), e.layers());
    }
    return out;
  }

  private static List<String> rows(StoreFixture fx, long snapshot) {
    TabletScanSpec spec = TabletScanSpec.of(RowSetLifecycleTest.SCHEMA, List.of(), List.of(),
        null, null,
        snapshot);
    return fx.store.scan(spec, null, 100_000).rows().stream().map(r -> r[0] + "=" + r[1])
        .toList();
  }

  @Test
  void aRowsetMergeRewritesOnlyTheSmallRowsetsOfOneTier() {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      write(fx, RowOpType.INSERT, 0, 2000, "big");
      fx.store.flush();
      for (int r = 0; r < 4; r++) {
        write(fx, RowOpType.INSERT, 2000 + r * 10, 2010 + r * 10, "small");
        fx.store.flush();
      }
      Map<Long, List<List<BlockId>>> before = layout(fx);
      assertThat(before).hasSize(5);
      long big = fx.store.rowsets().get(0).id();
      List<String> expected = rows(fx, fx.index);
      int blocks = fx.blocks.blockIds().size();

      // Tiers by real size: the four small rowsets are one tier, the big one is not in it.
      CompactionPolicy policy = new CompactionPolicy(1 << 20, 4, 3, 0.5, 1);
      CompactionResult r = fx.store.compactIfNeeded(policy);
      assertThat(r.kind()).isEqualTo(Kind.MERGE_ROWSETS);
      assertThat(r.rowsetsIn()).isEqualTo(4);
      assertThat(r.rowsetsOut()).isEqualTo(1);
      assertThat(r.layersIn()).isEqualTo(4);
      assertThat(r.layersOut()).isEqualTo(1);
      assertThat(r.bytesIn()).isGreaterThan(r.bytesOut()).isPositive();

      Map<Long, List<List<BlockId>>> after = layout(fx);
      assertThat(after).hasSize(2).containsEntry(big, before.get(big));
      // The merged rowsets' blocks are gone: 4 layers' worth became one layer's.
      int perLayer = before.get(big).get(0).size();
      assertThat(fx.blocks.blockIds()).hasSize(blocks - 3 * perLayer);
      assertThat(rows(fx, fx.index)).isEqualTo(expected);
      assertThat(fx.store.compactIfNeeded(policy)).isNull();
      fx.restart();
      assertThat(layout(fx)).isEqualTo(after);
      assertThat(rows(fx, fx.index)).isEqualTo(expected);
    }
  }

  @Test
  void deltaCompactionsRewriteOneRowsetMinorKeepingItsBaseThenMajor() {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      write(fx, RowOpType.INSERT, 0, 1000, "a");
      fx.store.flush();
      write(fx, RowOpType.INSERT, 1000, 1100, "b");
      fx.store.flush();
      long a = fx.store.rowsets().get(0).id();
      long b = fx.store.rowsets().get(1).id();
      long pinned = 0;
      for (int round = 0; round < 3; round++) {
        write(fx, RowOpType.UPDATE, round * 10, round * 10 + 50, "u" + round);
        fx.store.flush();
        if (round == 0) {
          pinned = fx.store.pinLatest(0);
        }
      }
      List<String> atPin = rows(fx, pinned);
      List<String> now = rows(fx, fx.index);
      Map<Long, List<List<BlockId>>> before = layout(fx);
      assertThat(before.get(a)).hasSize(4);

      CompactionPolicy minor = new CompactionPolicy(1 << 20, 4, 3, 1000, 1);
      CompactionResult r = fx.store.compactIfNeeded(minor);
      assertThat(r.kind()).isEqualTo(Kind.MINOR_DELTA);
      assertThat(r.layersIn()).isEqualTo(3);
      Map<Long, List<List<BlockId>>> afterMinor = layout(fx);
      assertThat(afterMinor.get(a)).hasSize(2).startsWith(before.get(a).get(0));
      assertThat(afterMinor.get(b)).isEqualTo(before.get(b));
      assertThat(rows(fx, pinned)).isEqualTo(atPin);
      assertThat(rows(fx, fx.index)).isEqualTo(now);

      write(fx, RowOpType.UPDATE, 0, 10, "w");
      fx.store.flush();
      now = rows(fx, fx.index);
      CompactionPolicy major = new CompactionPolicy(1 << 20, 4, 3, 0, 1);
      r = fx.store.compactIfNeeded(major);
      assertThat(r.kind()).isEqualTo(Kind.MAJOR_DELTA);
      assertThat(r.layersIn()).isEqualTo(3);
      Map<Long, List<List<BlockId>>> afterMajor = layout(fx);
      assertThat(afterMajor.get(a)).hasSize(1);
      assertThat(afterMajor.get(a).get(0)).doesNotContainAnyElementsOf(before.get(a).get(0));
      assertThat(afterMajor.get(b)).isEqualTo(before.get(b));
      assertThat(rows(fx, pinned)).isEqualTo(atPin);
      assertThat(rows(fx, fx.index)).isEqualTo(now);
      fx.store.unpin(pinned);
    }
  }
}
