package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code nyala bench table-locations}, tiny: in this JVM, and the misuse of --master-only. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BenchTableLocationsCommandTest {
  @Test
  void aShortRunInThisJvmPrintsRatesAndTheCacheRatio() {
    CliRun run = CliRun.nyala("bench", "table-locations", "--tablets", "3", "--threads", "1",
        "--seconds", "0.3", "--warmup-seconds", "0.2", "--mode", "rpc", "--compare");

    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("table-locations rpc: 3 tablets, 1 threads, cache 0 MiB")
        .contains("cache 128 MiB").contains("latency us: count").contains("cached/uncached: ");
  }

  @Test
  void masterOnlyAsksForRpcMode() {
    CliRun run = CliRun.nyala("bench", "table-locations", "--master-only", "--mode", "call");

    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).contains("--master-only").contains("--mode rpc")
        .contains("--mode call");
  }
}
