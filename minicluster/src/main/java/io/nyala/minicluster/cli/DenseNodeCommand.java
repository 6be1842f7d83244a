package io.nyala.minicluster.cli;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.NyalaException;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import io.nyala.minicluster.dense.DenseTables;
import io.nyala.minicluster.dense.ProcessStats;
import io.nyala.minicluster.dense.ReplicaCensus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nyala bench dense-node}: Kudu's dense_node-itest for Nyala. Tablet servers as
 * processes hold many replicas; a fraction stays hot under a steady write load, the rest
 * hibernates (docs/dense-nodes.md); the footprint of each server is read from {@code /proc}.
 */
@Command(name = "dense-node", mixinStandardHelpOptions = true,
    description = {
        "Starts 1 master + --tservers tablet servers as processes (RF 1 with one, "
            + "RF 3 with three), creates tables of --buckets-per-table tablets until each tserver "
            + "holds --replicas-per-tserver replicas, writes rows to every tablet, lets all but "
            + "the --hot-fraction hibernate and keeps that fraction under a write load.",
        "Prints per tserver threads, RSS, heap, open fds and CPU (under load, then all cold), "
            + "the time a full tserver restart takes until all replicas are reported and "
            + "every table answers a scan, and the latency of first writes to cold tablets, "
            + "against the dense-node targets."})
final class DenseNodeCommand implements Callable<Integer> {
  @Option(names = "--tservers", defaultValue = "1", description = "1 (RF 1) or 3 (RF 3).")
  int tservers;
  @Option(names = "--replicas-per-tserver", defaultValue = "2000") int replicasPerTserver;
  @Option(names = "--hot-fraction", defaultValue = "0.1",
      description = "Fraction of the tables kept under write load (default 0.1).")
  double hotFraction;
  @Option(names = "--buckets-per-table", defaultValue = "60") int buckets;
  @Option(names = "--rows-per-tablet", defaultValue = "20") int rowsPerTablet;
  @Option(names = "--hibernate-after-ms", defaultValue = "10000",
      description = "--tablet_hibernate_after_ms of the tablet servers.") long hibernateAfterMs;
  @Option(names = "--hibernate-on-stop-ms", defaultValue = "10000",
      description = "--tablet_hibernate_on_stop_ms of the tablet servers: how long a clean stop "
          + "may spend hibernating quiet groups first (0 = off, as before it existed).")
  long hibernateOnStopMs;
  @Option(names = "--retry-cache-expiry-ms", defaultValue = "0",
      description = {
          "Ratis' retry cache expiry on the tablet servers (0 = Ratis' default, "
              + "60 s): how long each replica keeps the results of its writes, which answer a "
              + "client's retry exactly once, also after a hibernation.",
          "The bench's client then gives a write at most "
              + "this long (30 s otherwise), retries included: a retry arriving after the window "
              + "would be applied again."}) long retryCacheExpiryMs;
  @Option(names = "--load-seconds", defaultValue = "20",
      description = "How long the hot tables are loaded before the figures are read.")
  long loadSeconds;
  @Option(names = "--idle-seconds", defaultValue = "10",
      description = "Window of the idle CPU measurement (default 10).") long idleSeconds;
  @Option(names = "--wake-samples", defaultValue = "100",
      description = "Cold tablets given a first write to time the wake.") int wakeSamples;
  @Option(names = "--settle-timeout-seconds", defaultValue = "900",
      description = "Longest wait for replicas to hibernate or be reported.") long settleSeconds;
  @Option(names = "--server-heap", defaultValue = "1g", description = "-Xmx of each server.")
  String serverHeap;
  @Option(names = "--server-jvm-option", paramLabel = "OPTION",
      description = "A JVM option of the server processes (e.g. "
          + "-XX:StartFlightRecording=filename=DIR/); repeatable.")
  List<String> serverJvmOptions = new ArrayList<>();
  @Option(names = "--work-dir", description = "Where the cluster runs (default: a temp dir, "
      + "removed).") Path workDir;

  /** Tables created, written and scanned this many at a time (a 2-core box). */
  private static final int PARALLELISM = 4;

  /** Table name to rows it holds; filled before the writers start, then only counted up. */
  private final Map<String, AtomicLong> expectedRows = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    if (tservers != 1 && tservers != 3) {
      throw NyalaException.invalidArgument("--tservers must be 1 or 3, got %d", tservers);
    }
    if (replicasPerTserver < 1 || buckets < 1 || hotFraction < 0 || hotFraction > 1) {
      throw NyalaException.invalidArgument("--replicas-per-tserver and --buckets-per-table "
          + "must be >= 1 and --hot-fraction in [0, 1] (got %d, %d, %s)", replicasPerTserver,
          buckets, hotFraction);
    }
    int rf = tservers;
    int tables = (replicasPerTserver + buckets - 1) / buckets;
    int perTserver = tables * buckets;
    int hotTables = (int) Math.round(hotFraction * tables);
    String header = String.format("dense-node: %d tserver(s), RF %d, %d tables x %d buckets = "
        + "%d replicas per tserver, %d hot tables (%d tablets), hibernate after %d ms, retry "
        + "cache expiry %s", tservers, rf, tables, buckets, perTserver, hotTables,
        hotTables * buckets, hibernateAfterMs,
        retryCacheExpiryMs > 0 ? retryCacheExpiryMs + " ms" : "default (60 s)");
    System.err.println(header);
    // A temp dir is deleted by the cluster when it closes (keepData is off then).
    Path dir = workDir != null ? workDir : Files.createTempDirectory("dense-node");
    try (MiniCluster cluster = startCluster(dir);
        ReplicaCensus census = new ReplicaCensus(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(operationTimeoutMs())
            .defaultAdminOperationTimeoutMs(600_000).build()) {
      List<String> names = build(client, tables, rf);
      List<NyalaTable> hot = new ArrayList<>();
      for (int i = 0; i < hotTables; i++) {
        hot.add(client.openTable(names.get(i)));
      }
      long coldReplicas = (long) (tables - hotTables) * buckets * rf;
      List<DenseNodeReport.Sample> hotSamples;
      try (DenseNodeLoad load = DenseNodeLoad.start(client, hot, expectedRows)) {
        awaitHibernated(census, "cold replicas hibernated", coldReplicas);
        System.err.printf("hot load for %d s ...%n", loadSeconds);
        hotSamples = sample(cluster, census, loadSeconds * 1000);
        System.err.printf("hot load: %.0f rows/s, %d batches failed%n", load.rowsPerSecond(),
            load.failedBatches());
      }
      awaitHibernated(census, "all replicas hibernated", (long) tables * buckets * rf);
      System.err.printf("measuring idle for %d s ...%n", idleSeconds);
      List<DenseNodeReport.Sample> coldSamples = sample(cluster, census, idleSeconds * 1000);
      System.err.printf("waking %d cold tablets ...%n", wakeSamples);
      DenseNodeReport.Wakes wakes = DenseNodeLoad.wakes(client, names, buckets, wakeSamples,
          expectedRows);
      List<Double> serverWakeMeans = new ArrayList<>();
      for (int i = 0; i < tservers; i++) {
        double sum = census.metric(i, "tablet_wake_latency_seconds_sum", null, null);
        double count = census.metric(i, "tablet_wake_latency_seconds_count", null, null);
        serverWakeMeans.add(count > 0 ? 1000 * sum / count : Double.NaN);
      }
      RestartTimes restart = restart(cluster, census, client, perTserver);
      System.out.println(new DenseNodeReport(header, hotSamples, coldSamples, idleSeconds)
          .render(restart.allReportedMs(), restart.allScannedMs(), wakes, serverWakeMeans));
    }
    return 0;
  }

  /**
   * The client's time for one write, retries included: within the servers' retry cache window,
   * or a late retry of a write would be applied twice (see the client builder).
   */
  private long operationTimeoutMs() {
    long window = retryCacheExpiryMs > 0 ? retryCacheExpiryMs : 60_000;
    return Math.min(30_000, window);
  }

  private MiniCluster startCluster(Path dir) {
    System.err.printf("starting 1 master + %d tablet server processes in %s ...%n", tservers,
        dir);
    MiniCluster.Builder b = MiniCluster.builder().processMode(ProcessMode.EXTERNAL).numMasters(1)
        .numTabletServers(tservers).dataRoot(dir).keepData(workDir != null)
        .serverJvmOption("-Xmx" + serverHeap)
        .tserverFlag("--tablet_hibernate_after_ms=" + hibernateAfterMs)
        .tserverFlag("--tablet_hibernate_on_stop_ms=" + hibernateOnStopMs)
        .readyTimeoutMs(TimeUnit.SECONDS.toMillis(settleSeconds));
    serverJvmOptions.forEach(b::serverJvmOption);
    if (retryCacheExpiryMs > 0) {
      b.tserverFlag("--raft_property=raft.server.retrycache.expirytime=" + retryCacheExpiryMs
          + "ms");
    }
    return b.build();
  }

  /**
   * Creates the tables one after the other and writes rows to every tablet of each as soon as
   * it exists, on other threads while the next table is created, with progress lines. Written
   * so, each table's tablets take their rows while still awake from creation: created all
   * first, they would be cold again by the time of the writes (creating 1,000 tablets takes
   * over a minute), and writing them would be a storm of wakes that mostly waits on each
   * tserver's one Ratis group-management thread.
   */
  private List<String> build(NyalaClient client, int tables, int rf) {
    AtomicLong created = new AtomicLong();
    AtomicLong written = new AtomicLong();
    List<String> names = new ArrayList<>();
    ExecutorService writers = Executors.newFixedThreadPool(PARALLELISM);
    try (Progress c = new Progress(System.err, "creating tablets", (long) tables * buckets,
            created::get, 5);
        Progress w = new Progress(System.err, "writing rows to every tablet",
            (long) tables * buckets * rowsPerTablet, written::get, 5)) {
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (int i = 0; i < tables; i++) {
        String name = DenseTables.name("dense", i);
        DenseTables.createTable(client, name, buckets, rf);
        created.addAndGet(buckets);
        names.add(name);
        AtomicLong rows = new AtomicLong();
        expectedRows.put(name, rows); // by this thread only; the writers count in rows
        writes.add(CompletableFuture.runAsync(() -> {
          long n = DenseTables.writeEveryTablet(client, client.openTable(name), rowsPerTablet);
          rows.addAndGet(n);
          written.addAndGet(n);
        }, writers));
      }
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
    } catch (java.util.concurrent.CompletionException e) {
      throw NyalaException.from(e.getCause());
    } finally {
      writers.shutdownNow();
    }
    return names;
  }

  private void awaitHibernated(ReplicaCensus census, String what, long total) {
    AtomicLong now = new AtomicLong();
    try (Progress p = new Progress(System.err, what, total, now::get, 5)) {
      awaitTrue(what, () -> {
        long sum = 0;
        for (int i = 0; i < tservers; i++) {
          sum += Math.max(0, census.replicasIn(i, "hibernated"));
        }
        now.set(sum);
        return sum >= total;
      });
    }
  }

  /** Every tserver's figures, CPU over the next {@code windowMs}. */
  private List<DenseNodeReport.Sample> sample(MiniCluster cluster, ReplicaCensus census,
      long windowMs) throws InterruptedException {
    long[] ticks = new long[tservers];
    for (int i = 0; i < tservers; i++) {
      ticks[i] = ProcessStats.of(cluster.tabletServerPid(i)).cpuTicks();
    }
    long t0 = System.nanoTime();
    Thread.sleep(windowMs); // the measuring window itself
    double secs = (System.nanoTime() - t0) / 1e9;
    List<DenseNodeReport.Sample> out = new ArrayList<>();
    for (int i = 0; i < tservers; i++) {
      long pid = cluster.tabletServerPid(i);
      ProcessStats ps = ProcessStats.of(pid);
      double cpu = 100.0 * (ps.cpuTicks() - ticks[i]) / ProcessStats.TICKS_PER_SECOND / secs;
      out.add(new DenseNodeReport.Sample(cluster.tabletServer(i).name(), ps,
          ProcessStats.heapUsedAfterGcBytes(pid), cpu, census.replicasIn(i, "running"),
          census.replicasIn(i, "hibernated"),
          (long) census.metric(i, "tablet_hibernations_total", null, null),
          (long) census.metric(i, "tablet_wakes_total", null, null)));
    }
    return out;
  }

  /**
   * Stops every tablet server, starts them all again, and times (ms from the start) until every
   * replica is reported and until every table answers a scan with all its rows.
   */
  private RestartTimes restart(MiniCluster cluster, ReplicaCensus census, NyalaClient client,
      int perTserver) {
    System.err.println("restarting every tablet server ...");
    long stopStart = System.nanoTime();
    parallel(cluster::stopTabletServer);
    // The stop's own time is not in the restart figures; a clean stop that hibernates quiet
    // groups first spends some here to save it at the start (docs/dense-nodes.md).
    System.err.printf("every tablet server stopped in %d ms%n", sinceMs(stopStart));
    long t0 = System.nanoTime();
    parallel(cluster::startTabletServer);
    awaitTrue("all replicas reported after the restart",
        () -> census.allReported(perTserver, sinceMs(t0)));
    long reported = sinceMs(t0);
    DenseTables.forEach(List.copyOf(expectedRows.entrySet()), PARALLELISM, e ->
        awaitTrue("table " + e.getKey() + " answers a scan with " + e.getValue() + " rows",
            () -> {
              try {
                return DenseTables.countRows(client, client.openTable(e.getKey()))
                    == e.getValue().get();
              } catch (NyalaException ex) {
                return false;
              }
            }));
    return new RestartTimes(reported, sinceMs(t0));
  }

  /** A full restart, in ms from the start: until all replicas are reported, all tables scan. */
  private record RestartTimes(long allReportedMs, long allScannedMs) {}

  private void parallel(IntConsumer perServer) {
    CompletableFuture.allOf(IntStream.range(0, tservers)
        .mapToObj(i -> CompletableFuture.runAsync(() -> perServer.accept(i)))
        .toArray(CompletableFuture[]::new)).join();
  }

  private void awaitTrue(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(settleSeconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw NyalaException.timedOut("%s: not within %d s", what, settleSeconds);
      }
      try {
        Thread.sleep(100); // polling other processes; no event to wait on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw NyalaException.illegalState("interrupted waiting: %s", what);
      }
    }
  }

  private static long sinceMs(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }
}
