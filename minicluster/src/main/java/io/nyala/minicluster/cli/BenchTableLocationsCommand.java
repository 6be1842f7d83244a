package io.nyala.minicluster.cli;

import io.nyala.master.MasterServer;
import io.nyala.master.locations.TableLocationsBench;
import io.nyala.master.locations.TableLocationsBench.Caller;
import io.nyala.master.locations.TableLocationsBench.Latency;
import io.nyala.master.locations.TableLocationsBench.Mode;
import io.nyala.master.locations.TableLocationsBench.Params;
import io.nyala.master.locations.TableLocationsBench.Result;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code nyala bench table-locations}: GetTableLocations throughput, cache off and on. */
@Command(name = "table-locations", mixinStandardHelpOptions = true,
    description = {
        "Starts 1 master + 3 tablet servers in this JVM, creates a table, then has "
            + "threads call GetTableLocations (max 1000 locations, interned tserver infos) "
            + "directly on the master (call) or over gRPC, one channel per thread (rpc).",
        "With --master-only the master and tablet servers run as processes, so the master's "
            + "JVM serves nothing but these calls and the tablet servers' heartbeats, with the "
            + "full JIT; each run then warms up until the master's JIT is quiet.",
        "Prints req/s, and for rpc the latency percentiles in microseconds."})
final class BenchTableLocationsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Option(names = "--tablets", defaultValue = "60") int tablets;
  @Option(names = "--threads", defaultValue = "2") int threads;
  @Option(names = "--seconds", defaultValue = "5") double seconds;
  @Option(names = "--warmup-seconds", defaultValue = "2") double warmupSeconds;
  @Option(names = "--cache-mb", defaultValue = "128",
      description = "--table_locations_cache_capacity_mb for the run (0 = off).") long cacheMb;
  @Option(names = "--mode", defaultValue = "call", description = "call or rpc.") String mode;
  @Option(names = "--compare", description = "Run with the cache off, then with --cache-mb, "
      + "and print the ratio.") boolean compare;
  @Option(names = "--json", description = "Print one JSON object.") boolean json;
  @Option(names = "--master-only", description = "Servers as processes; the master process "
      + "alone answers (needs --mode rpc).") boolean masterOnly;
  @Option(names = "--max-warmup-seconds", defaultValue = "120", description = "With "
      + "--master-only: the longest warm-up before measuring anyway (default 120).")
  double maxWarmupSeconds;

  @Override
  public Integer call() throws Exception {
    Mode m = Mode.valueOf(mode.toUpperCase(Locale.ROOT));
    Path dir = Files.createTempDirectory("locations-bench");
    List<Result> results = new ArrayList<>();
    if (masterOnly) {
      if (m != Mode.RPC) {
        throw new ParameterException(spec.commandLine(), "--master-only measures calls over "
            + "the network: give --mode rpc (got --mode " + mode + ")");
      }
      for (long mb : compare ? List.of(0L, cacheMb) : List.of(cacheMb)) {
        results.add(new MasterProcessBench(dir.resolve("cache-" + mb), tablets,
            maxWarmupSeconds).run(new Params(threads, seconds, warmupSeconds, mb, m)));
      }
      System.out.println(json ? toJson(results) : toText(results));
      return 0;
    }
    try (MiniCluster cluster = MiniCluster.builder().numMasters(1).numTabletServers(3)
        .dataRoot(dir).processMode(ProcessMode.IN_PROCESS).build()) {
      System.err.println("starting 1 master + 3 tablet servers ...");
      cluster.start();
      MasterServer master = cluster.inProcessMaster(0);
      System.err.printf("creating a table with %d tablets ...%n", tablets);
      TableLocationsBench.createTable(master, "bench_locations", tablets);
      List<Long> sizes = compare ? List.of(0L, cacheMb) : List.of(cacheMb);
      for (long mb : sizes) {
        System.err.printf("%s mode, %d threads, cache %d MiB: %.0f s warm-up + %.0f s ...%n",
            mode, threads, mb, warmupSeconds, seconds);
        Supplier<Caller> callers = m == Mode.RPC
            ? MasterProcessBench.harnessCallers(cluster, master.rpcAddress())
            : () -> master::getTableLocations;
        results.add(TableLocationsBench.run(master, "bench_locations",
            new Params(threads, seconds, warmupSeconds, mb, m), callers));
      }
    }
    System.out.println(json ? toJson(results) : toText(results));
    return 0;
  }

  private String toText(List<Result> results) {
    StringBuilder sb = new StringBuilder();
    for (Result r : results) {
      sb.append(String.format("table-locations %s: %d tablets, %d threads, cache %d MiB: "
              + "%d requests in %.2f s = %.0f req/s%n", mode, tablets, threads,
          r.params().cacheMb(), r.requests(), r.seconds(), r.requestsPerSecond()));
      Latency l = r.latency();
      if (l != null) {
        sb.append(String.format("  latency us: count %d mean %.1f min %.1f p25 %.1f p50 %.1f "
                + "p75 %.1f p95 %.1f p99 %.1f p99.9 %.1f p99.99 %.1f max %.1f%n", l.count(),
            l.mean(), l.min(), l.p25(), l.p50(), l.p75(), l.p95(), l.p99(), l.p999(),
            l.p9999(), l.max()));
      }
    }
    if (results.size() == 2) {
      sb.append(String.format("cached/uncached: %.2fx%n", ratio(results)));
    }
    return sb.toString().stripTrailing();
  }

  private static double ratio(List<Result> results) {
    return results.get(1).requestsPerSecond() / results.get(0).requestsPerSecond();
  }

  private String toJson(List<Result> results) {
    List<String> runs = new ArrayList<>();
    for (Result r : results) {
      Latency l = r.latency();
      String lat = l == null ? "null" : String.format(Locale.ROOT, "{\"count\":%d,\"mean\":%.1f,"
          + "\"min\":%.1f,\"p25\":%.1f,\"p50\":%.1f,\"p75\":%.1f,\"p95\":%.1f,\"p99\":%.1f,"
          + "\"p99_9\":%.1f,\"p99_99\":%.1f,\"max\":%.1f}", l.count(), l.mean(), l.min(),
          l.p25(), l.p50(), l.p75(), l.p95(), l.p99(), l.p999(), l.p9999(), l.max());
      runs.add(String.format(Locale.ROOT, "{\"cache_mb\":%d,\"requests\":%d,\"seconds\":%.3f,"
          + "\"req_per_sec\":%.1f,\"latency_us\":%s}", r.params().cacheMb(), r.requests(),
          r.seconds(), r.requestsPerSecond(), lat));
    }
    String ratio = results.size() == 2 ? String.format(Locale.ROOT, "%.3f", ratio(results))
        : "null";
    return String.format(Locale.ROOT, "{\"mode\":\"%s\",\"tablets\":%d,\"threads\":%d,"
        + "\"runs\":[%s],\"ratio\":%s}", mode, tablets, threads, String.join(",", runs), ratio);
  }
}
