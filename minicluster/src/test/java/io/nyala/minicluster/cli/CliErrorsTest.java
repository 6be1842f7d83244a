package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.ServerRole;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wrong {@code --masters} or a mistyped option fails fast with one line that names the
 * address or value and says what to do, never a stack trace (CliErrors, MasterProbe).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class CliErrorsTest {
  @TempDir
  static Path dir;

  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = MiniCluster.builder().numMasters(1).numTabletServers(1)
        .dataRoot(dir.resolve("c")).build();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void anUnreachableMasterFailsWithinSecondsSayingWhatToDo() throws IOException {
    String nothing = "127.0.0.1:" + freePort();
    long t0 = System.nanoTime();

    CliRun run = CliRun.nyala("table", "list", "--masters", nothing);

    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(6));
    assertOneLineError(run, 1).contains("no master answered at " + nothing)
        .contains("local-cluster").contains("--masters").contains(MastersOption.ENV);
  }

  @Test
  void aTabletServersRpcAddressIsNamedAsSuch() {
    String ts = tabletServer().rpcAddress().toString();

    CliRun run = CliRun.nyala("cluster", "ksck", "--masters", ts, "--client-config",
        cluster.clientConfigFile().toString());

    assertOneLineError(run, 1).contains(ts).contains("tablet server's RPC address")
        .contains("7051");
  }

  @Test
  void aMastersWebPortIsNamedAsSuchWithTheRpcPort() {
    ServerInfo master = cluster.servers().stream().filter(s -> s.role() == ServerRole.MASTER)
        .findFirst().orElseThrow();
    String web = master.httpAddress().toString();

    CliRun run = CliRun.nyala("perf", "loadgen", "--table", "t", "--rows", "1", "--masters", web);

    assertOneLineError(run, 1).contains(web).contains("HTTP").contains("7051");
  }

  @Test
  void theRightAddressStillWorks() {
    CliRun run = CliRun.nyala("table", "list", "--masters", cluster.masterAddresses(),
        "--client-config", cluster.clientConfigFile().toString());

    assertThat(run.status()).as(run.err()).isZero();
  }

  @Test
  void withoutTheClientConfigATlsClusterIsNamedAsTheReason() {
    CliRun run = CliRun.nyala("table", "list", "--masters", cluster.masterAddresses());

    assertOneLineError(run, 1).contains("no master answered at " + cluster.masterAddresses())
        .contains("requires TLS").contains("--client-config")
        .contains(MastersOption.CONFIG_ENV);
  }

  @Test
  void aTypoedFlagIsShortWithTheHelpToSee() {
    CliRun run = CliRun.nyala("table", "list", "--mastrs", cluster.masterAddresses());

    List<String> lines = assertUsageError(run);
    assertThat(lines.get(0)).contains("--mastrs");
    assertThat(lines.get(1)).contains("nyala table list --help").contains("--masters");
  }

  @Test
  void aNegativeCountIsRefusedNamingTheOptionAndTheValue() {
    CliRun rows = CliRun.nyala("perf", "loadgen", "--table", "t", "--rows", "-5", "--masters",
        cluster.masterAddresses());
    assertThat(assertUsageError(rows).get(0)).contains("--rows").contains("-5");

    CliRun threads = CliRun.nyala("perf", "loadgen", "--table", "t", "--threads", "0",
        "--masters", cluster.masterAddresses());
    assertThat(assertUsageError(threads).get(0)).contains("--threads").contains("0");

    CliRun tservers = CliRun.nyala("local-cluster", "--tservers", "-1");
    assertThat(assertUsageError(tservers).get(0)).contains("--tservers").contains("-1");

    CliRun limit = CliRun.nyala("table", "scan", "t", "--limit", "-1", "--masters",
        cluster.masterAddresses());
    assertThat(assertUsageError(limit).get(0)).contains("--limit").contains("-1");
  }

  @Test
  void verbosePrintsTheStackTraceToo() throws IOException {
    CliRun run = CliRun.nyala("table", "list", "--verbose", "--masters",
        "127.0.0.1:" + freePort());

    assertThat(run.status()).isEqualTo(1);
    assertThat(run.err()).startsWith("error: no master answered").contains("\tat ");
  }

  private static ServerInfo tabletServer() {
    return cluster.servers().stream().filter(s -> s.role() == ServerRole.TABLET_SERVER)
        .findFirst().orElseThrow();
  }

  /** A port nothing listens on: bound, then released. */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static org.assertj.core.api.AbstractStringAssert<?> assertOneLineError(CliRun run,
      int status) {
    assertThat(run.status()).as(run.err()).isEqualTo(status);
    List<String> lines = run.err().lines().toList();
    assertThat(lines).as(run.err()).hasSize(1);
    assertNoTrace(run);
    return assertThat(lines.get(0)).startsWith("error: ");
  }

  /** Exit 2, the error and one line of help: not the whole usage. */
  private static List<String> assertUsageError(CliRun run) {
    assertThat(run.status()).as(run.err()).isEqualTo(2);
    List<String> lines = run.err().lines().toList();
    assertThat(lines).as(run.err()).hasSize(2);
    assertThat(lines.get(0)).startsWith("error: ");
    assertThat(lines.get(1)).startsWith("see 'nyala ");
    assertThat(run.out()).isEmpty();
    assertNoTrace(run);
    return lines;
  }

  private static void assertNoTrace(CliRun run) {
    assertThat(run.err().lines()).noneMatch(l -> l.startsWith("\tat "))
        .noneMatch(l -> l.matches(".*\\b\\w+(Exception|Error)\\b.*"));
  }
}
