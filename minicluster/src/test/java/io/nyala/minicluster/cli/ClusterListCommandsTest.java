package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.minicluster.MiniCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nyala master list} and {@code nyala tserver list} against three masters. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClusterListCommandsTest {
  @TempDir
  Path dir;

  @Test
  void listsMastersWithRolesAndTabletServersWithLiveness() {
    try (MiniCluster c = MiniCluster.builder().numMasters(3).numTabletServers(2)
        .dataRoot(dir.resolve("c")).build()) {
      String config = c.clientConfigFile().toString();
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        List<String> rows = rows(CliRun.nyala("master", "list", "--client-config", config));
        assertThat(rows).hasSize(4);
        assertThat(rows.stream().filter(r -> r.contains(" LEADER "))).hasSize(1);
        assertThat(rows.stream().filter(r -> r.contains(" FOLLOWER "))).hasSize(2);
      });
      String leaderRow = rows(CliRun.nyala("master", "list", "--client-config", config)).stream()
          .filter(r -> r.contains(" LEADER ")).findFirst().orElseThrow();
      int leader = c.leaderMasterIndex();
      assertThat(leaderRow).startsWith(c.master(leader).uuid())
          .contains(c.master(leader).rpcAddress().toString());

      // Any one master is enough to find the leader.
      CliRun ts = CliRun.nyala("tserver", "list", "--client-config", config, "--masters",
          c.master((leader + 1) % 3).rpcAddress().toString());
      assertThat(ts.status()).as(ts.err()).isZero();
      List<String> tsRows = rows(ts);
      assertThat(tsRows).hasSize(3);
      assertThat(tsRows.get(0)).contains("UUID", "STATE", "LAST_HB", "TABLETS", "REPLICAS",
          "AWAKE", "HIBERNATED", "FAILED_DIRS");
      for (int i = 0; i < 2; i++) {
        String uuid = c.tabletServer(i).uuid();
        assertThat(tsRows).anySatisfy(r -> assertThat(r).startsWith(uuid).contains(" live "));
      }

      c.stopMaster((leader + 1) % 3);
      CliRun oneDown = CliRun.nyala("master", "list", "--client-config", config);
      assertThat(oneDown.status()).as("exit status with two of three masters answering")
          .isZero();
      assertThat(rows(oneDown).stream().filter(r -> r.contains(" UNREACHABLE "))).hasSize(1);

      // None answering is a failure, said on stderr, not a table of UNREACHABLE rows and 0.
      String down = c.master((leader + 1) % 3).rpcAddress().toString();
      CliRun none = CliRun.nyala("master", "list", "--client-config", config, "--masters", down,
          "--timeout-ms", "500");
      assertThat(none.status()).isEqualTo(1);
      assertThat(none.err()).contains("error: no master answered at " + down);
    }
  }

  @Test
  void aTabletServersRowEndsWithItsReplicasAndFailedDataDirs() {
    ListTabletServersResponsePB.Entry e = ListTabletServersResponsePB.Entry.newBuilder()
        .setTsInfo(TSInfoPB.newBuilder().setUuid("ts-a")).setLive(true)
        .setMillisSinceHeartbeat(1500).setNumLiveTablets(1200).setNumReplicas(1200)
        .setNumAwakeReplicas(200).setNumHibernatedReplicas(1000).setNumDataDirs(4)
        .addFailedDataDirs("/data/2").build();

    String row = ClusterListCommands.row(e);

    assertThat(row.trim().split(" +")).containsExactly("ts-a", "-", "-", "-", "live", "1.5s",
        "1200", "1200", "200", "1000", "1/4");
    assertThat(ClusterListCommands.row(e.toBuilder().clearNumDataDirs().clearFailedDataDirs()
        .build()).trim()).endsWith(" -");
  }

  @Test
  void serverFlagsStillReachTheServerBesideTheListSubcommand() {
    CliRun help = CliRun.nyala("master", "--help");
    assertThat(help.status()).isZero();
    assertThat(help.out()).contains("--master_discovery_timeout_ms", "--master_addresses");
  }

  private static List<String> rows(CliRun run) {
    assertThat(run.status()).as(run.out()).isZero();
    return Arrays.stream(run.out().split("\n")).filter(l -> !l.isBlank()).toList();
  }
}
