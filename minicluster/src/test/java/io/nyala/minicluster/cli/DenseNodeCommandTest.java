package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bench dense-node} at a tiny size (1 tserver process, 20 replicas) runs through every
 * phase and prints each figure next to its target.
 */
class DenseNodeCommandTest {
  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void tinyRunPrintsEveryFigure() {
    CliRun run = CliRun.nyala("bench", "dense-node", "--tservers", "1",
        "--replicas-per-tserver", "20", "--buckets-per-table", "5", "--hot-fraction", "0.25",
        "--rows-per-tablet", "3", "--hibernate-after-ms", "1000",
        "--retry-cache-expiry-ms", "10000", "--load-seconds", "2",
        "--idle-seconds", "2", "--wake-samples", "10", "--settle-timeout-seconds", "90",
        "--server-heap", "256m");
    assertThat(run.status()).as("stderr: %s", run.err()).isZero();
    assertThat(run.out())
        .contains("dense-node: 1 tserver(s), RF 1, 4 tables x 5 buckets = 20 replicas per "
            + "tserver, 1 hot tables (5 tablets)")
        .containsPattern("awake replicas \\(hot load\\) +\\d+")
        .containsPattern("threads \\(hot load\\) +\\d+ +<= \\d+")
        .containsPattern("threads \\(all cold\\) +\\d+ +<= 150 ")
        .containsPattern("RSS MiB \\(all cold\\) +[0-9.]+")
        .containsPattern("heap used MiB after full GC \\(all cold\\) +[0-9.]+ +<= 1024")
        .containsPattern("open fds \\(all cold\\) +\\d+")
        .containsPattern("idle CPU % of a core \\(all cold, 2 s\\) +[0-9.]+% +<= 5.00%")
        .containsPattern("restart to all replicas reported \\(ms\\) +\\d+ +<= 10000")
        .containsPattern("restart to every table answering a scan \\(ms\\) +\\d+")
        .contains("first write to 10 cold tablets (0 failed)")
        .containsPattern("p50 +[0-9.]+ +<= 150.0")
        .containsPattern("p99 +[0-9.]+ +<= 500.0")
        .containsPattern("max +[0-9.]+");
  }
}
