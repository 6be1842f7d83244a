package io.nyala.minicluster.cli;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession.FlushMode;
import io.nyala.client.NyalaTable;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nyala perf loadgen}: writes generated rows (an int64 key and a few typed columns) with
 * several threads in a chosen flush mode, shows progress, and ends with rows/s, MB/s and the
 * client-side latency percentiles of each flush (of each operation in AUTO_FLUSH_SYNC). With
 * {@code --minicluster} or {@code --processes} it starts its own 1 master + 3 tablet servers
 * (docs/performance.md has the figures and the commands that measured them).
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

  @Option(names = "--batch", defaultValue = "1000",
      description = "Rows per flush (MANUAL_FLUSH), or per background buffer.")
  int batch;

  @Option(names = "--flush-mode", defaultValue = "AUTO_FLUSH_BACKGROUND",
      description = "AUTO_FLUSH_SYNC (each row written and waited for), AUTO_FLUSH_BACKGROUND "
          + "or MANUAL_FLUSH.")
  FlushMode flushMode;

  @Option(names = "--string-len", defaultValue = "16",
      description = "Length of each row's string value.")
  int stringLen;

  @Option(names = "--minicluster",
      description = "Start a 1 master + 3 tablet server cluster in this JVM (ignores --masters).")
  boolean minicluster;

  @Option(names = "--processes",
      description = "Start a 1 master + 3 tablet server cluster as server processes, with "
          + "the full JIT (the minicluster's usual C1-only start is for tests).")
  boolean processes;

  @Option(names = "--tls", paramLabel = "true|false", defaultValue = "true", arity = "1",
      description = "TLS and authentication on the cluster of --minicluster or --processes, as "
          + "the minicluster's default; false to compare with plaintext.")
  boolean tls;

  @Option(names = "--server-jvm-option", paramLabel = "OPTION",
      description = "A JVM option of the server processes of --processes (e.g. "
          + "-XX:StartFlightRecording=filename=DIR/); repeatable.")
  List<String> serverJvmOptions = new ArrayList<>();

  @Option(names = "--tserver-flag", paramLabel = "FLAG",
      description = "A flag of every tablet server of --minicluster or --processes (e.g. "
          + "--raft_property=KEY=VALUE, to compare a Ratis setting); repeatable.")
  List<String> tserverFlags = new ArrayList<>();

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
    CliErrors.requireAtLeast(spec, "--string-len", stringLen, 0);
    if (!minicluster && !processes) {
      return run(masters.clientBuilder());
    }
    MiniCluster.Builder b = MiniCluster.builder().numMasters(1).numTabletServers(3).tls(tls)
        .processMode(processes ? ProcessMode.EXTERNAL : ProcessMode.IN_PROCESS);
    if (processes) {
      b.serverJvmOption(BenchJvm.FULL_JIT);
    }
    serverJvmOptions.forEach(b::serverJvmOption);
    tserverFlags.forEach(b::tserverFlag);
    try (MiniCluster c = b.build()) {
      System.out.printf("loadgen: started 1 master + 3 tablet servers %s (%s, %s)%n",
          processes ? "as processes (full JIT)" : "in this JVM", c.masterAddresses(),
          tls ? "TLS and authentication" : "plaintext");
      return run(c.clientBuilder());
    }
  }

  /** Writes the rows, prints the report and returns the exit status. */
  int run(NyalaClient.Builder clientBuilder) throws Exception {
    try (NyalaClient client = clientBuilder.build()) {
      NyalaTable t = openOrCreate(client);
      LoadgenWriter.Config config = new LoadgenWriter.Config(flushMode, batch, stringLen);
      Latencies latencies = new Latencies();
      LoadgenTally tally = new LoadgenTally();
      long t0 = System.nanoTime();
      writeAll(new LoadgenWriter(client, t, config, latencies, tally), tally);
      double secs = Progress.secondsSince(t0);
      report(tally, latencies, secs);
      return tally.failed() == 0 ? 0 : 1;
    }
  }

  private void writeAll(LoadgenWriter writer, LoadgenTally tally) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Progress p = new Progress(System.out, "loadgen", rows, tally::written)) {
      List<Future<?>> fs = new ArrayList<>();
      for (int w = 0; w < threads; w++) {
        long from = startKey + rows * w / threads;
        long to = startKey + rows * (w + 1) / threads;
        fs.add(pool.submit(() -> {
          writer.write(from, to);
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void report(LoadgenTally tally, Latencies latencies, double secs) {
    for (String e : tally.firstErrors()) {
      System.out.println("row error: " + e);
    }
    String what = flushMode == FlushMode.AUTO_FLUSH_SYNC ? "operations" : "flushes";
    System.out.printf("loadgen: %s, %d threads, %d-byte strings; latency of %s%n", flushMode,
        threads, stringLen, latencies.summary().format(what));
    double s = Math.max(secs, 1e-9);
    System.out.printf("loadgen: %d rows written to '%s' in %.2f s (%.0f rows/s, %.2f MB/s), "
        + "%d failed%n", tally.written(), table, secs, tally.written() / s,
        tally.bytes() / s / 1e6, tally.failed());
    if (tally.alreadyPresent() > 0) {
      System.out.printf("loadgen: %d of the keys [%d, %d) were already in '%s' (an earlier "
          + "run?); write new ones with --start-key %d%n", tally.alreadyPresent(), startKey,
          startKey + rows, table, startKey + rows);
    }
  }

  private NyalaTable openOrCreate(NyalaClient client) {
    if (client.tableExists(table)) {
      return client.openTable(table);
    }
    int rf = replicas > 0 ? replicas : defaultReplicas(client);
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
  private int defaultReplicas(NyalaClient client) {
    long live = TableCreateCommand.liveTabletServers(client);
    int rf = TableCreateCommand.defaultReplicas(live);
    System.out.printf("loadgen: creating '%s' with %d replicas (%d live tablet servers)%n",
        table, rf, live);
    return rf;
  }
}
