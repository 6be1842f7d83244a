package io.nyala.minicluster.cli;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.OperationResponse;
import io.nyala.common.NyalaException;
import io.nyala.minicluster.dense.DenseTables;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The write load of {@code bench dense-node}: a steady stream into the hot tables that touches
 * every hot tablet several times per hibernation period, and single first writes to cold
 * tablets, timed from the client.
 */
final class DenseNodeLoad implements AutoCloseable {
  /** Keys of the hot load start here, far above the rows written first. */
  private static final long HOT_KEYS = 1_000_000_000_000L;
  /** Keys of the wake samples start here. */
  private static final long WAKE_KEYS = 2_000_000_000_000L;
  /** Pause between rounds: every hot tablet gets rows about five times a second. */
  private static final long ROUND_PAUSE_MS = 200;

  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong rows = new AtomicLong();
  private final AtomicLong failedBatches = new AtomicLong();
  private final long startNanos = System.nanoTime();
  private final Thread thread;

  private DenseNodeLoad(NyalaClient client, List<NyalaTable> hot,
      Map<String, AtomicLong> expectedRows) {
    thread = new Thread(() -> run(client, hot, expectedRows), "dense-node-hot-load");
    thread.setDaemon(true);
  }

  static DenseNodeLoad start(NyalaClient client, List<NyalaTable> hot,
      Map<String, AtomicLong> expectedRows) {
    DenseNodeLoad l = new DenseNodeLoad(client, hot, expectedRows);
    l.thread.start();
    return l;
  }

  private void run(NyalaClient client, List<NyalaTable> hot, Map<String, AtomicLong> expected) {
    long next = HOT_KEYS;
    while (!stop.get() && !hot.isEmpty()) {
      for (NyalaTable t : hot) {
        // Two rows per tablet per round on average: a bucket misses a whole hibernation
        // period of rounds with negligible probability.
        int n = 2 * t.getPartitionSchema().numTablets();
        List<Long> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          keys.add(next++);
        }
        try {
          DenseTables.insert(client, t, keys);
        } catch (RuntimeException e) {
          // Counted, not fatal: the figures are still worth printing, with this next to them.
          failedBatches.incrementAndGet();
          System.err.println("hot load: a batch to '" + t.getName() + "' failed: "
              + e.getMessage());
          continue;
        }
        expected.get(t.getName()).addAndGet(n);
        rows.addAndGet(n);
      }
      try {
        Thread.sleep(ROUND_PAUSE_MS); // pacing the load, not waiting for a condition
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  long failedBatches() {
    return failedBatches.get();
  }

  double rowsPerSecond() {
    return rows.get() / Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.join();
  }

  /** One tablet of the bench's tables: the table's position in the list and its bucket. */
  private record Tablet(int table, int bucket) {}

  /**
   * Writes one row to each of {@code samples} distinct tablets chosen at random among the
   * (cold) tables, one at a time in its own AUTO_FLUSH_SYNC session, timing each.
   */
  static DenseNodeReport.Wakes wakes(NyalaClient client, List<String> tables, int buckets,
      int samples, Map<String, AtomicLong> expected) {
    List<Tablet> targets = new ArrayList<>();
    for (int t = 0; t < tables.size(); t++) {
      for (int b = 0; b < buckets; b++) {
        targets.add(new Tablet(t, b));
      }
    }
    Collections.shuffle(targets, new Random(42));
    List<Tablet> chosen = targets.subList(0, Math.min(samples, targets.size()));
    double[] millis = new double[chosen.size()];
    int failed = 0;
    int n = 0;
    for (Tablet target : chosen) {
      NyalaTable table = client.openTable(tables.get(target.table()));
      long key = DenseTables.keysByBucket(table, 1, WAKE_KEYS)[target.bucket()][0];
      long t0 = System.nanoTime();
      String error;
      try (NyalaSession s = client.newSession()) {
        OperationResponse r = s.apply(DenseTables.insertOf(table, key));
        error = r.hasRowError() ? r.getRowError().toString() : null;
      } catch (NyalaException e) {
        error = e.getMessage();
      }
      millis[n++] = (System.nanoTime() - t0) / 1e6;
      if (error != null) {
        failed++;
        System.err.println("wake write to '" + table.getName() + "' failed: " + error);
      } else {
        expected.get(table.getName()).incrementAndGet();
      }
    }
    return new DenseNodeReport.Wakes(millis, failed);
  }
}
