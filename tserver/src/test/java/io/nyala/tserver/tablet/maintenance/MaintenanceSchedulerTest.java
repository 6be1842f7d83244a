package io.nyala.tserver.tablet.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.RowSetLifecycleTest;
import io.nyala.tserver.tablet.StoreFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The flush triggers, driven one pass at a time (the scheduled pass is an hour away). */
@Timeout(30)
class MaintenanceSchedulerTest {
  private static final long NEVER = Long.MAX_VALUE / 4;
  @TempDir Path dir;

  private static void write(StoreFixture fx, int rows) {
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      ops.add(new Op(RowOpType.INSERT, RowSetLifecycleTest.SCHEMA.newPartialRow()
          .addInt("id", i).addString("v", "value-" + i)));
    }
    fx.apply(RowSetLifecycleTest.SCHEMA, ops);
  }

  private static MaintenanceScheduler scheduler(MaintenanceScheduler.Policy p,
      StoreFixture... fxs) {
    return new MaintenanceScheduler(p, () -> {
      List<BlockTabletStore> out = new ArrayList<>();
      for (StoreFixture f : fxs) {
        out.add(f.store);
      }
      return out;
    }, Thread::new, 3_600_000);
  }

  @Test
  void overTheMemoryLimitTheLargestTabletIsFlushedFirst() {
    try (StoreFixture big = StoreFixture.plain(dir.resolve("big"), RowSetLifecycleTest.SCHEMA);
        StoreFixture small = StoreFixture.plain(dir.resolve("small"),
            RowSetLifecycleTest.SCHEMA)) {
      write(big, 200);
      write(small, 20);
      long limit = small.store.memoryBytes() + 1;
      try (MaintenanceScheduler s = scheduler(
          new MaintenanceScheduler.Policy(NEVER, NEVER, limit), big, small)) {
        s.runOnce();
        assertThat(big.store.memoryBytes()).isZero();
        assertThat(big.store.durableIndex()).isEqualTo(big.index);
        assertThat(small.store.memoryBytes()).isPositive();
        assertThat(s.flushes()).isEqualTo(1);
      }
    }
  }

  @Test
  void sizeAndAgeThresholdsFlushEachTablet() {
    try (StoreFixture a = StoreFixture.plain(dir.resolve("a"), RowSetLifecycleTest.SCHEMA);
        StoreFixture b = StoreFixture.plain(dir.resolve("b"), RowSetLifecycleTest.SCHEMA)) {
      write(a, 100);
      write(b, 5);
      long threshold = a.store.memoryBytes();
      try (MaintenanceScheduler s = scheduler(
          new MaintenanceScheduler.Policy(threshold, NEVER, NEVER), a, b)) {
        s.runOnce();
        assertThat(a.store.memoryBytes()).isZero();
        assertThat(b.store.memoryBytes()).isPositive();
      }
      try (MaintenanceScheduler s = scheduler(
          new MaintenanceScheduler.Policy(NEVER, 0, NEVER), a, b)) {
        s.runOnce();
        assertThat(b.store.memoryBytes()).isZero();
        assertThat(s.flushes()).isEqualTo(1);
      }
    }
  }

  @Test
  void compactionOffStopsBackgroundCompactionAndFlushesGoOn() {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      for (int r = 0; r < 5; r++) {
        List<Op> ops = new ArrayList<>();
        for (int i = r * 10; i < r * 10 + 10; i++) {
          ops.add(new Op(RowOpType.INSERT, RowSetLifecycleTest.SCHEMA.newPartialRow()
              .addInt("id", i).addString("v", "v" + i)));
        }
        fx.apply(RowSetLifecycleTest.SCHEMA, ops);
        fx.store.flush();
      }
      // A delta of the first rowset, for the flush.
      fx.apply(RowSetLifecycleTest.SCHEMA, List.of(new Op(RowOpType.UPDATE,
          RowSetLifecycleTest.SCHEMA.newPartialRow().addInt("id", 1).addString("v", "x"))));
      int layers = fx.store.diskLayerCount();
      try (MaintenanceScheduler s = scheduler(new MaintenanceScheduler.Policy(
          0, NEVER, NEVER, false, CompactionPolicy.DEFAULT), fx)) {
        s.runOnce();
        assertThat(s.flushes()).isEqualTo(1);
        assertThat(s.compactions()).isZero();
        assertThat(fx.store.diskLayerCount()).isEqualTo(layers + 1);
      }
      try (MaintenanceScheduler s = scheduler(new MaintenanceScheduler.Policy(
          NEVER, NEVER, NEVER, true, CompactionPolicy.DEFAULT), fx)) {
        s.runOnce();
        assertThat(s.compactions()).isEqualTo(1);
        CompactionStats st = s.compactionStats();
        assertThat(st.count(CompactionResult.Kind.MERGE_ROWSETS)).isEqualTo(1);
        assertThat(st.in(CompactionStats.Figure.ROWSETS)).isEqualTo(5);
        assertThat(st.out(CompactionStats.Figure.ROWSETS)).isEqualTo(1);
        assertThat(st.in(CompactionStats.Figure.LAYERS)).isEqualTo(layers + 1);
        assertThat(st.out(CompactionStats.Figure.BYTES)).isPositive();
        assertThat(fx.store.diskLayerCount()).isEqualTo(1);
      }
    }
  }

  /**
   * A store listed by a pass and closed before the pass reaches it (its replica hibernated or
   * was deleted meanwhile) is skipped: no flush, no compaction, no failure counted or warned.
   */
  @Test
  void aStoreClosedAfterThePassListedItIsNoFailure() {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      write(fx, 50);
      fx.store.flush();
      write(fx, 50);
      try (MaintenanceScheduler s = new MaintenanceScheduler(
          new MaintenanceScheduler.Policy(0, 0, 0), () -> {
            List<BlockTabletStore> listed = List.of(fx.store);
            fx.store.close();
            return listed;
          }, Thread::new, 3_600_000)) {
        s.runOnce();
        assertThat(fx.store.isClosed()).isTrue();
        assertThat(s.flushes()).isZero();
        assertThat(s.compactions()).isZero();
        assertThat(s.failures()).isZero();
      }
    }
  }

  /**
   * On the tablet server's shared pool, close() must not shut the pool down, and must not
   * return while a pass is still flushing stores that the server is about to close.
   */
  @Test
  void onASharedPoolCloseWaitsForTheRunningPassAndLeavesThePoolRunning() throws Exception {
    ScheduledExecutorService pool = Executors.newScheduledThreadPool(1);
    try {
      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger passes = new AtomicInteger();
      MaintenanceScheduler s = new MaintenanceScheduler(
          new MaintenanceScheduler.Policy(NEVER, NEVER, NEVER), () -> {
            passes.incrementAndGet();
            entered.countDown();
            awaitQuietly(release);
            return List.of();
          }, pool, 1);
      entered.await();
      Thread closer = new Thread(s::close);
      closer.start();
      await().atMost(Duration.ofSeconds(10))
          .until(() -> closer.getState() == Thread.State.BLOCKED);
      release.countDown();
      closer.join();
      int after = passes.get();
      pool.submit(() -> { }).get(); // the pool still runs tasks; the passes have stopped
      assertThat(pool.isShutdown()).isFalse();
      assertThat(pool.schedule(() -> passes.get(), 20, TimeUnit.MILLISECONDS).get())
          .isEqualTo(after);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void awaitQuietly(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
