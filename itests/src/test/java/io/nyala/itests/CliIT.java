package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.minicluster.cli.NyalaCommand;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first commands, automated: {@code nyala local-cluster} runs as a real process,
 * {@code perf loadgen} writes through it, {@code table count} counts, and after SIGTERM and a
 * restart on the same data dir the count is unchanged.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CliIT {
  @TempDir
  Path dir;

  /** A local cluster process and the MASTERS= line it printed. */
  private record LocalCluster(Process process, String masters) {}

  private LocalCluster startLocalCluster(Path dataDir) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g", "-cp", System.getProperty("java.class.path"),
        "io.nyala.minicluster.cli.NyalaCommand", "local-cluster", "--data-dir",
        dataDir.toString()));
    Process p = new ProcessBuilder(cmd)
        .redirectError(dir.resolve("local-cluster-" + System.nanoTime() + ".log").toFile())
        .start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> masters = CompletableFuture.supplyAsync(() -> {
      try {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("MASTERS=")) {
            return line.substring("MASTERS=".length());
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      throw new IllegalStateException("local-cluster exited without printing MASTERS=");
    });
    String m = masters.get(2, TimeUnit.MINUTES);
    // Keep draining stdout so the process never blocks on a full pipe.
    CompletableFuture.runAsync(() -> out.lines().forEach(l -> { }));
    return new LocalCluster(p, m);
  }

  private static void stop(LocalCluster c) throws Exception {
    c.process().destroy(); // SIGTERM, as Ctrl-C's SIGINT: the shutdown hook closes the servers
    assertThat(c.process().waitFor(60, TimeUnit.SECONDS)).as("local-cluster exits").isTrue();
  }

  /** Runs a CLI command in this JVM; returns its exit code and stdout. */
  static String[] cli(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code;
    synchronized (CliIT.class) {
      System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
      try {
        code = NyalaCommand.run(args);
      } finally {
        System.setOut(old);
      }
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    old.print(out);
    return new String[] {String.valueOf(code), out};
  }

  private static String lastLine(String s) {
    String[] lines = s.strip().split("\n");
    return lines[lines.length - 1].strip();
  }

  @Test
  void localClusterLoadgenCountAndRestart() throws Exception {
    Path data = dir.resolve("nyala-data");
    LocalCluster c = startLocalCluster(data);
    // What local-cluster wrote for its clients: masters, CA, user (TLS and authentication on).
    String config = data.resolve("client.properties").toString();
    try {
      String[] gen = cli("perf", "loadgen", "--client-config", config, "--table", "t",
          "--rows", "20000", "--threads", "2");
      assertThat(gen[0]).as(gen[1]).isEqualTo("0");
      assertThat(gen[1]).as("the replication factor by default")
          .contains("creating 't' with 3 replicas (3 live tablet servers)");
      assertThat(lastLine(gen[1])).contains("20000 rows").contains("rows/s");
      // A rerun on the same keys fails and says how to write new ones.
      String[] rerun = cli("perf", "loadgen", "--client-config", config, "--table", "t",
          "--rows", "100");
      assertThat(rerun[0]).as(rerun[1]).isEqualTo("1");
      assertThat(lastLine(rerun[1])).isEqualTo("loadgen: 100 of the keys [0, 100) were already "
          + "in 't' (an earlier run?); write new ones with --start-key 100");
      String[] help = cli("perf", "loadgen", "--help");
      assertThat(help[1]).contains("Default: 100000").contains("Default: 0");
      String[] count = cli("table", "count", "--client-config", config, "t");
      assertThat(count[0]).isEqualTo("0");
      assertThat(lastLine(count[1])).isEqualTo("20000");
      String[] list = cli("table", "list", "--client-config", config);
      assertThat(list[1]).contains("t");
      String[] scan = cli("table", "scan", "--client-config", config, "t",
          "--columns", "key,str_val", "--limit", "5");
      assertThat(scan[1].strip().split("\n")).hasSize(6);
      assertThat(scan[1]).startsWith("key\tstr_val");
    } finally {
      stop(c);
    }
    assertThat(new File(data.toFile(), "minicluster.properties")).exists();

    LocalCluster again = startLocalCluster(data);
    try {
      assertThat(again.masters()).isEqualTo(c.masters());
      String[] count = cli("table", "count", "--client-config", config, "t");
      assertThat(lastLine(count[1])).isEqualTo("20000");
    } finally {
      stop(again);
    }
  }
}
