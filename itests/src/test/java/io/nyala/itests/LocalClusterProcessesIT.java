package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.minicluster.cli.NyalaCommand;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nyala local-cluster --processes} leaves no process behind: it runs as a real process,
 * prints its masters and one {@code SERVER_PID=} line per server process, serves
 * {@code perf loadgen}, and once it is stopped — SIGTERM as Ctrl-C does, or even SIGKILL, which
 * runs no shutdown hook — none of those server processes is left alive.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LocalClusterProcessesIT {
  @TempDir
  Path dir;

  /** The local-cluster process, its MASTERS= value and its servers' pids. */
  private record LocalCluster(Process process, String masters, List<Long> serverPids) {}

  private static List<String> command(Path dataDir) {
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        "io.nyala.minicluster.cli.NyalaCommand", "local-cluster", "--processes",
        "--data-dir", dataDir.toString());
  }

  private LocalCluster start(Path dataDir) throws Exception {
    Process p = new ProcessBuilder(command(dataDir))
        .redirectError(dir.resolve("local-cluster-" + System.nanoTime() + ".log").toFile())
        .start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<LocalCluster> started = CompletableFuture.supplyAsync(() -> {
      String masters = null;
      List<Long> pids = new ArrayList<>();
      try {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("MASTERS=")) {
            masters = line.substring("MASTERS=".length());
          } else if (line.startsWith("SERVER_PID=")) {
            pids.add(Long.parseLong(line.substring("SERVER_PID=".length()).strip()));
          } else if (line.startsWith("local cluster up")) {
            return new LocalCluster(p, masters, List.copyOf(pids));
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      throw new IllegalStateException("local-cluster exited before it was up");
    });
    LocalCluster c = started.get(2, TimeUnit.MINUTES);
    // Keep draining stdout so the process never blocks on a full pipe.
    CompletableFuture.runAsync(() -> out.lines().forEach(l -> { }));
    return c;
  }

  /** Runs a CLI command in this JVM; returns its exit code and stdout. */
  private static String[] cli(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code;
    synchronized (CliIT.class) { // CliIT swaps System.out the same way
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

  private static void assertAllGone(List<Long> pids, String after) {
    await("server processes " + pids + " gone after " + after).atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> pids.stream().noneMatch(pid ->
            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)));
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void servesLoadgenAndLeavesNoChildAfterSigterm() throws Exception {
    LocalCluster c = start(dir.resolve("data"));
    try {
      assertThat(c.masters()).as("MASTERS= line").isNotBlank();
      assertThat(c.serverPids()).as("SERVER_PID= lines (1 master + 3 tablet servers)")
          .hasSize(4).doesNotContain(c.process().pid());
      for (long pid : c.serverPids()) {
        assertThat(ProcessHandle.of(pid)).as("server pid %d", pid).isPresent();
      }
      String[] gen = cli("perf", "loadgen", "--client-config",
          dir.resolve("data").resolve("client.properties").toString(), "--table", "t",
          "--rows", "5000", "--replicas", "3", "--threads", "2");
      assertThat(gen[0]).as(gen[1]).isEqualTo("0");
      assertThat(gen[1]).contains("5000 rows");

      // A second local-cluster on the same data dir fails, naming the reason, rather than
      // taking the running servers' answers for its own.
      Path secondLog = dir.resolve("second-local-cluster.log");
      Process second = new ProcessBuilder(command(dir.resolve("data")))
          .redirectErrorStream(true).redirectOutput(secondLog.toFile()).start();
      try {
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("second local-cluster exits")
            .isTrue();
      } finally {
        second.destroyForcibly();
      }
      String said = Files.readString(secondLog);
      assertThat(second.exitValue()).as(said).isNotZero();
      assertThat(said).contains("already answers on").doesNotContain("local cluster up");
    } finally {
      c.process().destroy(); // SIGTERM, as Ctrl-C's SIGINT: the shutdown hook stops the servers
    }
    assertThat(c.process().waitFor(60, TimeUnit.SECONDS)).as("local-cluster exits").isTrue();
    assertAllGone(c.serverPids(), "SIGTERM");
    // Each server stopped cleanly, not SIGKILLed under the clean stop by the reaper of orphaned
    // processes, and what it logged while stopping is in its log.
    for (String server : List.of("master-1", "ts-1", "ts-2", "ts-3")) {
      String log = Files.readString(dir.resolve("data").resolve(server).resolve("server.log"));
      assertThat(log).as("%s's log", server).contains(" " + server + " stopping")
          .contains(" " + server + " stopped");
    }
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void leavesNoChildEvenAfterSigkill() throws Exception {
    LocalCluster c = start(dir.resolve("data-killed"));
    try {
      assertThat(c.serverPids()).hasSize(4);
    } finally {
      c.process().destroyForcibly(); // SIGKILL: no hook runs; the children watch their parent
    }
    assertThat(c.process().waitFor(60, TimeUnit.SECONDS)).as("local-cluster dies").isTrue();
    assertAllGone(c.serverPids(), "SIGKILL");
  }
}
