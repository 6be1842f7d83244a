package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.minicluster.MiniCluster;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code nyala perf loadgen} in each flush mode, with tiny sizes, against one minicluster. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LoadgenCommandTest {
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

  private static CliRun loadgen(String table, String... more) {
    String[] base = {"perf", "loadgen", "--client-config", config(), "--table", table};
    String[] args = new String[base.length + more.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(more, 0, args, base.length, more.length);
    return CliRun.nyala(args);
  }

  @Test
  void backgroundFlushIsTheDefaultAndReportsRatesAndFlushLatencies() {
    CliRun run = loadgen("bg", "--rows", "50", "--batch", "7", "--string-len", "40");

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("AUTO_FLUSH_BACKGROUND, 2 threads, 40-byte strings")
        .containsPattern("latency of \\d+ flushes: p50 [\\d.]+ ms, p95 [\\d.]+ ms, "
            + "p99 [\\d.]+ ms, max [\\d.]+ ms")
        .containsPattern("50 rows written to 'bg' in [\\d.]+ s \\(\\d+ rows/s, [\\d.]+ MB/s\\), "
            + "0 failed");
    assertThat(rowCount("bg")).isEqualTo("50");
  }

  @Test
  void syncModeTimesEachOperation() {
    CliRun run = loadgen("sync", "--rows", "12", "--threads", "3", "--flush-mode",
        "AUTO_FLUSH_SYNC");

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("latency of 12 operations")
        .contains("12 rows written to 'sync'");
  }

  @Test
  void manualFlushTimesEachFlushAndReportsAnEarlierRunsKeys() {
    CliRun first = loadgen("manual", "--rows", "20", "--batch", "5", "--flush-mode",
        "MANUAL_FLUSH", "--threads", "1");
    assertThat(first.status()).as(first.err()).isZero();
    assertThat(first.out()).contains("latency of 4 flushes");

    CliRun again = loadgen("manual", "--rows", "10", "--flush-mode", "MANUAL_FLUSH");
    assertThat(again.status()).isEqualTo(1);
    assertThat(again.out()).contains("0 rows written to 'manual'").contains("10 failed")
        .contains("10 of the keys [0, 10) were already in 'manual'");
  }

  @Test
  void anUnknownFlushModeIsRefusedNamingTheOptionAndTheValue() {
    CliRun run = loadgen("x", "--flush-mode", "SOMETIMES");

    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains("--flush-mode").contains("SOMETIMES");
  }

  @Test
  void itsOwnMiniclusterRunsTlsUnlessToldNot() {
    CliRun plain = CliRun.nyala("perf", "loadgen", "--minicluster", "--tls", "false",
        "--table", "p", "--rows", "5");
    assertThat(plain.status()).as(plain.err()).isZero();
    assertThat(plain.out()).contains(", plaintext)").doesNotContain("TLS")
        .contains("5 rows written to 'p'");
  }

  /** The cluster's client config file: masters, CA and user (TLS and authentication on). */
  private static String config() {
    return cluster.clientConfigFile().toString();
  }

  private static String rowCount(String table) {
    CliRun count = CliRun.nyala("table", "count", "--client-config", config(), table);
    assertThat(count.status()).as(count.err()).isZero();
    String[] lines = count.out().strip().split("\n");
    return lines[lines.length - 1].strip();
  }
}
