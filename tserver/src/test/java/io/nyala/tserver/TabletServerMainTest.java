package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tablet server process given bad flags exits non-zero with one line that names the flag or
 * the address, never a stack trace: the operator's mistake is in the command line.
 */
@Timeout(120)
class TabletServerMainTest {
  @TempDir
  Path dir;

  private record Exit(int status, List<String> lines) {}

  private Exit run(String... flags) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), TabletServerMain.class.getName(),
        "--fs_wal_dir=" + dir.resolve("wal"), "--webserver_port=-1",
        "--raft_bind_address=127.0.0.1:" + TserverFixture.freePort()));
    cmd.addAll(List.of(flags));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Exit(p.exitValue(), out.lines().filter(l -> !l.isBlank()).toList());
  }

  /** The process failed with exactly one line of reason containing every {@code names}. */
  private static void assertOneLine(Exit e, String... names) {
    assertThat(e.status()).isNotZero();
    assertThat(e.lines()).noneMatch(l -> l.startsWith("\tat ") || l.startsWith("Caused by"));
    // Log lines (timestamped) may come before; the process's own answer is one line.
    List<String> reasons = e.lines().stream()
        .filter(l -> l.startsWith("tablet server failed to start")).toList();
    assertThat(reasons).as("output %s", e.lines()).singleElement()
        .satisfies(l -> assertThat(l).contains(names));
  }

  @Test
  void aMalformedBindAddressIsOneLine() throws Exception {
    assertOneLine(run("--rpc_bind_addresses=127.0.0.1:notaport"), "127.0.0.1:notaport");
  }

  @Test
  void aPortInUseIsOneLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      String addr = "127.0.0.1:" + taken.getLocalPort();
      assertOneLine(run("--rpc_bind_addresses=" + addr), addr);
    }
  }

  @Test
  void aFaultFlagWithoutUnlockUnsafeFlagsIsOneLine() throws Exception {
    assertOneLine(run("--rpc_bind_addresses=127.0.0.1:0",
        "--fault_drop_write_response_after_commit"),
        "--fault_drop_write_response_after_commit", "--unlock_unsafe_flags");
  }
}
