package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.fault.CrashPoints;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.tserver.fs.BlockId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each crash point of flush and compaction sits where its name says: the armed point throws
 * (instead of halting), so the store stops there, and the files show what a crash would leave.
 */
@Timeout(30)
class StoreCrashPointsTest {
  @TempDir Path dir;

  /** What the test's crash action throws. */
  private static final class Crash extends RuntimeException {
    Crash(String point) {
      super("crash at " + point);
    }
  }

  private static void arm(String point) {
    CrashPoints.install(new CrashPoints(Map.of(point, 1.0), new SplittableRandom(1), p -> {
      throw new Crash(p);
    }));
  }

  @AfterEach
  void disarm() {
    CrashPoints.uninstall();
  }

  private static List<Op> rows(RowOpType type, int from, int to) {
    List<Op> ops = new ArrayList<>();
    for (int i = from; i < to; i++) {
      ops.add(new Op(type, RowSetLifecycleTest.SCHEMA.newPartialRow().addInt("id", i)
          .addString("v", "v" + i)));
    }
    return ops;
  }

  private static Set<BlockId> added(StoreFixture fx, Set<BlockId> before) {
    Set<BlockId> now = new HashSet<>(fx.blocks.blockIds());
    now.removeAll(before);
    return now;
  }

  private static Superblock onDisk(StoreFixture fx) {
    return Superblock.read(fx.env, fx.superblock());
  }

  @Test
  void flushBeforeSuperblockLeavesCommittedBlocksNoSuperblockLists() {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      fx.apply(RowSetLifecycleTest.SCHEMA, rows(RowOpType.INSERT, 0, 100));
      fx.store.flush();
      long durable = onDisk(fx).durableIndex();
      Set<BlockId> before = new HashSet<>(fx.blocks.blockIds());
      fx.apply(RowSetLifecycleTest.SCHEMA, rows(RowOpType.INSERT, 100, 200));
      arm(StoreCrashPoints.FLUSH_BEFORE_SUPERBLOCK);

      assertThatThrownBy(fx.store::flush).isInstanceOf(Crash.class);

      assertThat(onDisk(fx).durableIndex()).isEqualTo(durable);
      assertThat(added(fx, before)).as("orphans").isNotEmpty()
          .doesNotContainAnyElementsOf(onDisk(fx).allBlocks());
    }
  }

  @Test
  void flushAfterSuperblockHasMadeTheFlushDurable() {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      Set<BlockId> before = new HashSet<>(fx.blocks.blockIds());
      fx.apply(RowSetLifecycleTest.SCHEMA, rows(RowOpType.INSERT, 0, 100));
      arm(StoreCrashPoints.FLUSH_AFTER_SUPERBLOCK);

      assertThatThrownBy(fx.store::flush).isInstanceOf(Crash.class);

      assertThat(onDisk(fx).durableIndex()).isEqualTo(fx.index);
      assertThat(onDisk(fx).allBlocks()).containsExactlyInAnyOrderElementsOf(added(fx, before));
    }
  }

  @Test
  void compactionBeforeReleaseLeavesTheReplacedLayersBlocksAsOrphans() {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      fx.apply(RowSetLifecycleTest.SCHEMA, rows(RowOpType.INSERT, 0, 100));
      fx.store.flush();
      fx.apply(RowSetLifecycleTest.SCHEMA, rows(RowOpType.UPDATE, 0, 50));
      fx.store.flush();
      List<BlockId> replaced = onDisk(fx).allBlocks();
      arm(StoreCrashPoints.COMPACTION_BEFORE_RELEASE);

      assertThatThrownBy(fx.store::compact).isInstanceOf(Crash.class);

      assertThat(onDisk(fx).allBlocks()).isNotEmpty().doesNotContainAnyElementsOf(replaced);
      assertThat(fx.blocks.blockIds()).as("not released yet").containsAll(replaced);
    }
  }
}
