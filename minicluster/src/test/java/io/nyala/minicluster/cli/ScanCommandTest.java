package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.ServerRole;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code nyala perf scan} on tiny tables: its cases, figures and CPU lines (never a timing). */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ScanCommandTest {
  private static final String FIGURES = ": \\d+ rows in [\\d.]+ s \\(\\d+ rows/s, [\\d.]+ MB/s\\)";

  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = MiniCluster.builder().numMasters(1).numTabletServers(3).build();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void scansALoadgenTableInFourCasesWithTheServersCpuFromTheirMetrics() {
    String config = cluster.clientConfigFile().toString();
    CliRun load = CliRun.nyala("perf", "loadgen", "--client-config", config, "--table", "s",
        "--rows", "300");
    assertThat(load.status()).as(load.err()).isZero();

    List<String> args = new ArrayList<>(List.of("perf", "scan", "--client-config", config,
        "--table", "s", "--repeat", "2", "--batch-bytes", "512", "--prefetch", "false"));
    for (ServerInfo s : cluster.servers()) {
      if (s.role() == ServerRole.TABLET_SERVER) {
        args.add("--metrics-url");
        args.add(s.webUrl() + "/metrics");
      }
    }
    CliRun run = CliRun.nyala(args.toArray(new String[0]));

    assertThat(run.status()).as(run.err()).isZero();
    String cpu = "; server CPU [\\d.]+ us/row, client thread [\\d.]+ us/row";
    assertThat(run.out()).contains("scan: warm-up: 300 rows of 's'")
        .contains("keys 0 to 299")
        .containsPattern("run 1/2, full table, 1 column \\(key\\): 300 rows in .*" + cpu)
        .containsPattern("run 2/2, full table, all columns \\(key,int_val,str_val,double_val,"
            + "ts_val\\)" + FIGURES + cpu)
        .containsPattern("run 2/2, 1% key range, 1 column \\(key\\): 3 rows in")
        .containsPattern("run 1/2, 1% key range, all columns" + FIGURES + cpu);
  }

  @Test
  void itsOwnMiniclusterLoadsTheRowsFirstAndCountsTheRestOfTheJvm() {
    CliRun run = CliRun.nyala("perf", "scan", "--minicluster", "--tls", "false", "--table", "m",
        "--rows", "200", "--repeat", "1");

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains(", plaintext)")
        .contains("200 rows written to 'm'")
        .containsPattern("run 1/1, full table, all columns \\(.*\\): 200 rows in .*"
            + "server\\+client-I/O CPU [\\d.]+ us/row, client thread [\\d.]+ us/row")
        .containsPattern("run 1/1, 1% key range, all columns: 2 rows in");
  }

  @Test
  void withoutMetricsPagesItPrintsOnlyTheClientsCpu() {
    String config = cluster.clientConfigFile().toString();
    CliRun empty = CliRun.nyala("perf", "scan", "--client-config", config, "--table", "none");
    assertThat(empty.status()).isNotZero();

    CliRun load = CliRun.nyala("perf", "loadgen", "--client-config", config, "--table", "c",
        "--rows", "20");
    assertThat(load.status()).as(load.err()).isZero();
    CliRun run = CliRun.nyala("perf", "scan", "--client-config", config, "--table", "c",
        "--repeat", "1", "--batch-rows", "7");
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("full table, all columns (key,int_val,str_val,double_val,"
        + "ts_val): 20 rows")
        .containsPattern("full table, 1 column \\(key\\)" + FIGURES
        + "; client thread [\\d.]+ us/row").doesNotContain("server CPU");
  }
}
