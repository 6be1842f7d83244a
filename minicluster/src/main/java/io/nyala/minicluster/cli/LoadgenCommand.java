package io.nyala.minicluster.cli;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.RowError;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nyala perf loadgen}: writes generated rows (an int64 key and a few typed columns) with
 * several threads, shows progress, and ends with a line of rows, seconds and rows/s.
 */
@Command(name = "loadgen", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Writes N generated rows into a table (created if missing; kept afterwards).")
final class LoadgenCommand implements Callable<Integer> {
  @Mixin MastersOption masters;

  @Spec CommandSpec spec;

  @Option(names = "--table", required = true, description = "Table to write.")
  String table;

  @Option(names = "--rows", defaultValue = "100000", description = "Rows to write.")
  long rows;

  @Option(names = "--buckets", defaultValue = "3", description = "Hash buckets if created.")
  int buckets;

  @Option(names = "--replicas", defaultValue = "0",
      description = "Replication factor if created; 0: as many as there are live tablet servers, "
          + "at most 3.")
  int replicas;

  @Option(names = "--threads", defaultValue = "2", description = "Writer threads.")
  int threads;

  @Option(names = "--start-key", defaultValue = "0", description = "First key written.")
  long startKey;

  @Option(names = "--batch", defaultValue = "1000", description = "Rows per flush.")
  int batch;

  /** Rows refused because their key was already in the table (a rerun on the same keys). */
  private final AtomicLong alreadyPresent = new AtomicLong();

  static Schema schema() {
    return Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("int_val", Type.INT32).nullable(false).build(),
        ColumnSchema.builder("str_val", Type.STRING).build(),
        ColumnSchema.builder("double_val", Type.DOUBLE).build(),
        ColumnSchema.builder("ts_val", Type.UNIXTIME_MICROS).build()));
  }

  @Override
  public Integer call() throws Exception {
    CliErrors.requireAtLeast(spec, "--rows", rows, 0);
    CliErrors.requireAtLeast(spec, "--buckets", buckets, 1);
    CliErrors.requireAtLeast(spec, "--replicas", replicas, 0);
    CliErrors.requireAtLeast(spec, "--threads", threads, 1);
    CliErrors.requireAtLeast(spec, "--batch", batch, 1);
    try (NyalaClient client = NyalaClient.builder(masters.get()).build()) {
      NyalaTable t = openOrCreate(client);
      AtomicLong written = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      List<String> firstErrors = java.util.Collections.synchronizedList(new ArrayList<>());
      long t0 = System.nanoTime();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try (Progress p = new Progress(System.out, "loadgen", rows, written::get)) {
        List<Future<?>> fs = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
          long from = startKey + rows * w / threads;
          long to = startKey + rows * (w + 1) / threads;
          fs.add(pool.submit(() -> {
            writeRange(client, t, from, to, written, failed, firstErrors);
            return null;
          }));
        }
        for (Future<?> f : fs) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      double secs = Progress.secondsSince(t0);
      for (String e : firstErrors) {
        System.out.println("row error: " + e);
      }
      System.out.printf("loadgen: %d rows written to '%s' in %.2f s (%.0f rows/s), %d failed%n",
          written.get(), table, secs, written.get() / Math.max(secs, 1e-9), failed.get());
      if (alreadyPresent.get() > 0) {
        System.out.printf("loadgen: %d of the keys [%d, %d) were already in '%s' (an earlier "
            + "run?); write new ones with --start-key %d%n", alreadyPresent.get(), startKey,
            startKey + rows, table, startKey + rows);
      }
      return failed.get() == 0 ? 0 : 1;
    }
  }

  private NyalaTable openOrCreate(NyalaClient client) {
    if (client.tableExists(table)) {
      return client.openTable(table);
    }
    int rf = replicas > 0 ? replicas : defaultReplicas();
    CreateTableOptions o = new CreateTableOptions().setNumReplicas(rf);
    if (buckets > 1) {
      o.addHashPartitions(List.of("key"), buckets);
    }
    try {
      return client.createTable(table, schema(), o);
    } catch (NyalaException e) {
      if (e.code() == StatusCode.ALREADY_PRESENT) {
        return client.openTable(table); // another loadgen created it meanwhile
      }
      throw e;
    }
  }

  /** As many replicas as there are live tablet servers, at most 3 (and at least 1). */
  private int defaultReplicas() {
    long live = TableCreateCommand.liveTabletServers(masters.get());
    int rf = TableCreateCommand.defaultReplicas(live);
    System.out.printf("loadgen: creating '%s' with %d replicas (%d live tablet servers)%n",
        table, rf, live);
    return rf;
  }

  private void writeRange(NyalaClient client, NyalaTable t, long from, long to,
      AtomicLong written, AtomicLong failed, List<String> firstErrors) {
    NyalaSession session = client.newSession();
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.setMutationBufferSpace(batch);
    Schema s = t.getSchema();
    long now = System.currentTimeMillis() * 1000;
    long pending = 0;
    for (long k = from; k < to; k++) {
      Operation op = t.newInsert();
      PartialRow r = op.getRow();
      r.addLong("key", k);
      r.addInt("int_val", (int) (k * 31));
      r.addString("str_val", "row-" + k);
      r.addDouble("double_val", k * 0.5);
      if (s.hasColumn("ts_val")) {
        r.addTimestampMicros("ts_val", now + k);
      }
      session.apply(op);
      if (++pending == batch) {
        flush(session, pending, written, failed, firstErrors);
        pending = 0;
      }
    }
    flush(session, pending, written, failed, firstErrors);
    session.close();
  }

  private void flush(NyalaSession session, long pending, AtomicLong written,
      AtomicLong failed, List<String> firstErrors) {
    if (pending == 0) {
      return;
    }
    var responses = session.flush();
    long bad = 0;
    for (var r : responses) {
      if (r.hasRowError()) {
        bad++;
        RowError e = r.getRowError();
        if (e.getErrorStatus().isAlreadyPresent()) {
          alreadyPresent.incrementAndGet();
        }
        if (firstErrors.size() < 5) {
          firstErrors.add(e.toString());
        }
      }
    }
    failed.addAndGet(bad);
    written.addAndGet(pending - bad);
  }
}
