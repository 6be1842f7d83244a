package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nyala local-cluster --processes} with a bad server flag fails with one line naming the
 * server and the flag's value, not a log tail full of stack traces.
 */
@Timeout(120)
class LocalClusterCommandTest {
  @TempDir
  Path dir;

  @Test
  void aBadBindFlagInProcessesModeIsOneLine() {
    CliRun run = CliRun.nyala("local-cluster", "--processes", "--num-masters=1", "--tservers=1",
        "--data-dir=" + dir, "--tserver-flag=--rpc_bind_addresses=127.0.0.1:notaport");
    assertThat(run.status()).isNotZero();
    List<String> lines = run.err().lines()
        .filter(l -> l.startsWith("error: ")).toList();
    assertThat(lines).singleElement().satisfies(l -> assertThat(l)
        .contains("exited during start").contains("127.0.0.1:notaport"));
    assertThat(run.err()).doesNotContain("\tat ");
  }
}
