package io.nyala.minicluster.cli;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.common.HostPort;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.rpc.Channels;
import io.nyala.master.locations.TableLocationsBench;
import io.nyala.master.locations.TableLocationsBench.Caller;
import io.nyala.master.locations.TableLocationsBench.Params;
import io.nyala.master.locations.TableLocationsBench.Result;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code bench table-locations --master-only}: GetTableLocations against a master process that
 * shares its JVM with nothing else (its tablet servers are processes too, idle but for their
 * heartbeats), over the cluster's own TLS, one channel per thread. Before measuring it warms up
 * in one-second rounds until the master's JIT spent under 1 % of a round compiling
 * ({@code jvm_jit_compilation_seconds_total} on its {@code /metrics}), so the figure is the
 * compiled path's.
 */
final class MasterProcessBench {
  private static final String TABLE = "bench_locations";
  /** A round whose JIT time is under this share of it counts as quiet. */
  private static final double QUIET_JIT_SHARE = 0.01;
  private static final String JIT_METRIC = "jvm_jit_compilation_seconds_total";

  private final Path dir;
  private final int tablets;
  private final double maxWarmupSeconds;

  MasterProcessBench(Path dir, int tablets, double maxWarmupSeconds) {
    this.dir = dir;
    this.tablets = tablets;
    this.maxWarmupSeconds = maxWarmupSeconds;
  }

  Result run(Params p) {
    System.err.printf("starting 1 master + 3 tablet server processes (cache %d MiB) ...%n",
        p.cacheMb());
    try (MiniCluster cluster = MiniCluster.builder().numMasters(1).numTabletServers(3)
        .dataRoot(dir).processMode(ProcessMode.EXTERNAL)
        .masterFlag("--table_locations_cache_capacity_mb=" + p.cacheMb())
        .serverJvmOption(BenchJvm.FULL_JIT).build();
        NyalaClient client = cluster.clientBuilder()
            .defaultAdminOperationTimeoutMs(300_000).build()) {
      System.err.printf("creating a table with %d tablets ...%n", tablets);
      client.createTable(TABLE, LoadgenCommand.schema(), new CreateTableOptions()
          .setNumReplicas(3).addHashPartitions(List.of("key"), tablets));
      HostPort master = cluster.master(0).rpcAddress();
      Supplier<Caller> callers = harnessCallers(cluster, master);
      GetTableLocationsRequestPB req = TableLocationsBench.request(TABLE);
      warmUp(callers, req, p, cluster.master(0).webUrl() + "/metrics");
      System.err.printf("measuring %d threads for %.0f s ...%n", p.threads(), p.seconds());
      return TableLocationsBench.measure(callers, req, p, p.seconds());
    }
  }

  /** Rounds of one second until one leaves the JIT quiet (or the warm-up limit passes). */
  private void warmUp(Supplier<Caller> callers, GetTableLocationsRequestPB req, Params p,
      String metricsUrl) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    long start = System.nanoTime();
    TableLocationsBench.measure(callers, req, p, p.warmupSeconds());
    for (int round = 1; ; round++) {
      double jitBefore = ServerCpu.scrape(http, metricsUrl, JIT_METRIC);
      Result r = TableLocationsBench.measure(callers, req, p, 1);
      double jit = ServerCpu.scrape(http, metricsUrl, JIT_METRIC) - jitBefore;
      double elapsed = (System.nanoTime() - start) / 1e9;
      System.err.printf("warm-up round %d: %.0f req/s, master JIT %.0f ms%n", round,
          r.requestsPerSecond(), jit * 1e3);
      if (jit < QUIET_JIT_SHARE * r.seconds()) {
        return;
      }
      if (elapsed >= maxWarmupSeconds) {
        System.err.printf("the master's JIT is still busy after %.0f s: measuring anyway%n",
            elapsed);
        return;
      }
    }
  }

  /** Callers with a channel each, with the cluster's TLS and the harness's identity. */
  static Supplier<Caller> harnessCallers(MiniCluster cluster, HostPort master) {
    return () -> {
      Channels channels = cluster.newHarnessChannels();
      return TableLocationsBench.overChannel(channels.get(master), channels::close);
    };
  }
}
