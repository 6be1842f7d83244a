package io.nyala.minicluster.dense;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.ScannerBuilder;
import io.nyala.common.NyalaException;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Many small tables hash-partitioned on an int64 key, as a dense node holds them: created in a
 * row, given rows in EVERY tablet (keys are chosen per bucket, not left to chance, so each
 * tablet has data to flush, hibernate and read back), and counted back by scans.
 */
public final class DenseTables {
  private DenseTables() {}

  /** The tables' schema: an int64 key and a short string. */
  public static Schema schema() {
    return Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("payload", Type.STRING).nullable(false).build()));
  }

  /** The name of table {@code i} of a set, e.g. {@code dense_0007}. */
  public static String name(String prefix, int i) {
    return String.format("%s_%04d", prefix, i);
  }

  /** Creates one table of {@code buckets} hash buckets and {@code rf} replicas. */
  public static void createTable(NyalaClient client, String name, int buckets, int rf) {
    client.createTable(name, schema(), new CreateTableOptions()
        .addHashPartitions(List.of("key"), buckets).setNumReplicas(rf));
  }

  /**
   * Runs {@code action} on every item, {@code threads} at a time (tables wake, scan and create
   * independently, so a dense cluster is checked in a fraction of the serial time).
   *
   * @throws NyalaException the first failure
   */
  public static <T> void forEach(List<T> items, int threads, Consumer<T> action) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      List<CompletableFuture<Void>> fs = new ArrayList<>();
      for (T item : items) {
        fs.add(CompletableFuture.runAsync(() -> action.accept(item), pool));
      }
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw NyalaException.from(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * For each hash bucket of {@code table}, the first {@code n} keys at or above {@code from}
   * that hash to it: {@code result[bucket][i]}.
   */
  public static long[][] keysByBucket(NyalaTable table, int n, long from) {
    var partitions = table.getPartitionSchema();
    int buckets = partitions.numTablets();
    long[][] out = new long[buckets][n];
    int[] filled = new int[buckets];
    int full = 0;
    Object[] row = new Object[table.getSchema().columnCount()];
    for (long k = from; full < buckets; k++) {
      row[0] = k;
      int b = partitions.bucket(0, row);
      if (filled[b] < n) {
        out[b][filled[b]++] = k;
        if (filled[b] == n) {
          full++;
        }
      }
    }
    return out;
  }

  /**
   * Inserts {@code rowsPerTablet} rows into every tablet of {@code table} (keys from 0 up) in
   * one flush.
   *
   * @return the rows written
   * @throws NyalaException if any row was refused
   */
  public static long writeEveryTablet(NyalaClient client, NyalaTable table, int rowsPerTablet) {
    long[][] keys = keysByBucket(table, rowsPerTablet, 0);
    List<Long> all = new ArrayList<>();
    for (long[] bucket : keys) {
      for (long k : bucket) {
        all.add(k);
      }
    }
    return insert(client, table, all);
  }

  /** Inserts rows with these keys in one flush; throws on the first refused row. */
  public static long insert(NyalaClient client, NyalaTable table, List<Long> keys) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      s.setMutationBufferSpace(Math.max(1000, keys.size()));
      for (long k : keys) {
        s.apply(insertOf(table, k));
      }
      for (OperationResponse r : s.flush()) {
        if (r.hasRowError()) {
          throw NyalaException.illegalState("table '%s': insert refused: %s", table.getName(),
              r.getRowError());
        }
      }
    }
    return keys.size();
  }

  /** An insert of the row with key {@code k}. */
  public static Operation insertOf(NyalaTable table, long k) {
    Operation op = table.newInsert();
    op.getRow().addLong("key", k).addString("payload", "p" + k);
    return op;
  }

  /** The rows a full scan of {@code table} returns. */
  public static long countRows(NyalaClient client, NyalaTable table) {
    return countRows(client, table, null);
  }

  /**
   * The rows a scan of {@code table} returns with {@code predicate} (none if null); the tablets
   * it prunes are not asked.
   */
  public static long countRows(NyalaClient client, NyalaTable table,
      ColumnPredicate predicate) {
    ScannerBuilder b = client.newScannerBuilder(table).setProjectedColumnNames(List.of("key"));
    if (predicate != null) {
      b.addPredicate(predicate);
    }
    NyalaScanner scanner = b.build();
    long n = 0;
    try {
      while (scanner.hasMoreRows()) {
        for (var ignored : scanner.nextRows()) {
          n++;
        }
      }
    } finally {
      scanner.close();
    }
    return n;
  }
}
