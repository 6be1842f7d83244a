package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flushes, compactions and pinned scans racing the apply thread: every scan at snapshot S sees
 * all keys, each with the value written at S (every entry writes every key, value = its index).
 */
@Timeout(60)
class ConcurrentMaintenanceTest {
  private static final int KEYS = 50;
  @TempDir Path dir;

  @Test
  void scansStayExactWhileFlushesAndCompactionsRaceWrites() throws Exception {
    try (StoreFixture fx = StoreFixture.plain(dir, RowSetLifecycleTest.SCHEMA)) {
      write(fx, RowOpType.INSERT);
      AtomicBoolean done = new AtomicBoolean();
      AtomicInteger maintained = new AtomicInteger();
      AtomicInteger scanned = new AtomicInteger();
      // Own threads: the common pool may have a single thread on a 2-core machine.
      ExecutorService threads = Executors.newFixedThreadPool(2);
      CompletableFuture<Void> maintenance = CompletableFuture.runAsync(() -> {
        int n = 0;
        while (!done.get()) {
          if (n++ % 3 == 2) {
            fx.store.compact();
          } else {
            fx.store.flush();
          }
          maintained.incrementAndGet();
        }
      }, threads);
      CompletableFuture<Integer> scans = CompletableFuture.supplyAsync(() -> {
        int checked = 0;
        while (!done.get()) {
          long snap = fx.store.pinLatest(0);
          try {
            checkAt(fx, snap);
            checked++;
            scanned.incrementAndGet();
          } finally {
            fx.store.unpin(snap);
          }
        }
        return checked;
      }, threads);
      // Enough writes to race several flushes, compactions and scans.
      for (int i = 0; i < 300 || maintained.get() < 6 || scanned.get() < 3; i++) {
        write(fx, RowOpType.UPDATE);
      }
      done.set(true);
      maintenance.get();
      assertThat(scans.get()).isPositive();
      threads.shutdown();
      checkAt(fx, fx.index);
      fx.store.flush();
      fx.restart();
      assertThat(fx.store.lastAppliedIndex()).isEqualTo(fx.index);
      checkAt(fx, fx.index);
    }
  }

  /** Upserts every key with v = the batch's index; returns that index. */
  private static long write(StoreFixture fx, RowOpType type) {
    long index = fx.index + 1;
    List<Op> ops = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      ops.add(new Op(type, RowSetLifecycleTest.SCHEMA.newPartialRow().addInt("id", k)
          .addString("v", Long.toString(index))));
    }
    assertThat(fx.apply(RowSetLifecycleTest.SCHEMA, ops)).isEmpty();
    return index;
  }

  private static void checkAt(StoreFixture fx, long snap) {
    TabletScanSpec spec = TabletScanSpec.of(RowSetLifecycleTest.SCHEMA, List.of(), List.of(),
        null, null,
        snap);
    List<Object[]> rows = new ArrayList<>();
    byte[] after = null;
    ScanPage p;
    do {
      p = fx.store.scan(spec, after, 17);
      rows.addAll(p.rows());
      after = p.lastKey();
    } while (p.hasMore());
    assertThat(rows).as("rows at %d in %s", snap, fx.store.describe()).hasSize(KEYS);
    // Every entry writes every key, so each row shows the snapshot's own index.
    assertThat(rows.stream().map(r -> r[1]).distinct().toList())
        .as("values at %d in %s", snap, fx.store.describe())
        .containsExactly(Long.toString(snap));
  }
}
