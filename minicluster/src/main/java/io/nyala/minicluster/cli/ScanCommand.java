package io.nyala.minicluster.cli;

import io.nyala.client.NyalaClient;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.ServerRole;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nyala perf scan}: scans a table {@code perf loadgen} wrote, on one client thread, in
 * four cases (the whole table and a 1% key range, each projecting one column and all columns),
 * and prints rows/s, MB/s and CPU per row of the servers and of the client thread for each run.
 * With {@code --minicluster} or {@code --processes} it starts its own 1 master + 3 tablet
 * servers and loads {@code --rows} rows with loadgen's writer first (docs/performance.md,
 * "Scans", has the figures and the commands that measured them).
 */
@Command(name = "scan", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Scans a loadgen table: full and 1%-key-range scans, projecting 1 and all "
        + "columns; prints rows/s, MB/s and CPU per row.")
final class ScanCommand implements Callable<Integer> {
  @Mixin MastersOption masters;

  @Spec CommandSpec spec;

  @Option(names = "--table", required = true, description = "Table to scan (loadgen's schema).")
  String table;

  @Option(names = "--rows", defaultValue = "100000",
      description = "Rows to load first with loadgen's writer when this command starts its own "
          + "cluster (--minicluster, --processes); with --masters the table is scanned as is.")
  long rows;

  @Option(names = "--string-len", defaultValue = "16",
      description = "Length of each loaded row's string value.")
  int stringLen;

  @Option(names = "--repeat", defaultValue = "3", description = "Runs of each case.")
  int repeat;

  @Option(names = "--batch-bytes", defaultValue = "0",
      description = "Row bytes per page the scanner asks for; 0: the server's default.")
  long batchBytes;

  @Option(names = "--batch-rows", defaultValue = "0",
      description = "Rows per page the scanner asks for; 0: the server's default.")
  int batchRows;

  @Option(names = "--prefetch", paramLabel = "true|false", defaultValue = "false", arity = "1",
      description = "Ask for the next page while the current one is read (off by default, "
          + "as in the client); true to compare.")
  boolean prefetch;

  @Option(names = "--metrics-url", paramLabel = "URL",
      description = "A tablet server's /metrics page (e.g. http://HOST:8050/metrics), read for "
          + "its process_cpu_seconds_total; repeatable. With --masters, without it no server CPU "
          + "is printed.")
  List<String> metricsUrls = new ArrayList<>();

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
      description = "A flag of every tablet server of --minicluster or --processes; repeatable.")
  List<String> tserverFlags = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    CliErrors.requireAtLeast(spec, "--rows", rows, 0);
    CliErrors.requireAtLeast(spec, "--string-len", stringLen, 0);
    CliErrors.requireAtLeast(spec, "--repeat", repeat, 1);
    CliErrors.requireAtLeast(spec, "--batch-bytes", batchBytes, 0);
    CliErrors.requireAtLeast(spec, "--batch-rows", batchRows, 0);
    if (!minicluster && !processes) {
      ServerCpu cpu = metricsUrls.isEmpty() ? null : ServerCpu.fromMetrics(metricsUrls);
      return scan(masters.clientBuilder(), cpu);
    }
    MiniCluster.Builder b = MiniCluster.builder().numMasters(1).numTabletServers(3).tls(tls)
        .processMode(processes ? ProcessMode.EXTERNAL : ProcessMode.IN_PROCESS);
    if (processes) {
      b.serverJvmOption(BenchJvm.FULL_JIT);
    }
    serverJvmOptions.forEach(b::serverJvmOption);
    tserverFlags.forEach(b::tserverFlag);
    try (MiniCluster c = b.build()) {
      System.out.printf("scan: started 1 master + 3 tablet servers %s (%s, %s)%n",
          processes ? "as processes (full JIT)" : "in this JVM", c.masterAddresses(),
          tls ? "TLS and authentication" : "plaintext");
      int loaded = load(c.clientBuilder());
      if (loaded != 0) {
        return loaded;
      }
      ServerCpu cpu = processes ? ServerCpu.fromMetrics(metricsPages(c))
          : ServerCpu.restOfThisJvm();
      return scan(c.clientBuilder(), cpu);
    }
  }

  /** Loads the table with {@code perf loadgen}'s defaults, its progress and its report. */
  private int load(NyalaClient.Builder clientBuilder) throws Exception {
    LoadgenCommand loadgen = new LoadgenCommand();
    new CommandLine(loadgen).parseArgs("--table", table, "--rows", Long.toString(rows),
        "--string-len", Integer.toString(stringLen));
    return loadgen.run(clientBuilder);
  }

  private static List<String> metricsPages(MiniCluster c) {
    List<String> urls = new ArrayList<>();
    for (ServerInfo s : c.servers()) {
      if (s.role() == ServerRole.TABLET_SERVER) {
        urls.add(s.webUrl() + "/metrics");
      }
    }
    return urls;
  }

  private int scan(NyalaClient.Builder clientBuilder, ServerCpu cpu) {
    try (NyalaClient client = clientBuilder.build()) {
      ScanBench bench = new ScanBench(client.openTable(table), cpu,
          new ScanBench.Paging(batchRows, batchBytes, prefetch));
      return bench.run(repeat);
    }
  }
}
