package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Re-replication never deletes its own joiner (docs/data-safety.md, "Re-replication"): RF 3 on
 * 4 tablet servers, tablet copies slowed to 15 s (longer than the master's default admin call
 * deadline), one replica's server killed (SIGKILL: every server is a process), and the
 * master restarted while the joiner copies: a master that forgot its move, as one that gave up
 * on it, sees the joiner report a tablet its catalog does not assign there. The tablet gets
 * back to 3 live voters and not one DeleteTablet reaches the joining server.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SlowJoinerIT {
  private static final int ROWS = 200;

  @Test
  void slowCopyJoinerIsKeptAndTheTabletReturnsToThreeLiveVoters() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
            .numMasters(1).numTabletServers(4)
            .masterFlag("--tserver_unresponsive_timeout_ms=2000")
            .masterFlag("--heartbeat_interval_ms=200")
            .masterFlag("--rereplication_retry_ms=2000")
            .tserverFlag("--heartbeat_interval_ms=200")
            .tserverFlag("--unlock_unsafe_flags")
            .tserverFlag("--fault_tablet_copy_fetch_delay_ms=15000").build();
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(60_000).build()) {
      cluster.start();
      NyalaTable table = client.createTable("slow", TestRows.schema(),
          new CreateTableOptions().setNumReplicas(3));
      TestRows.insert(client, table, 0, ROWS);
      String tablet = probe.tabletIds("slow").get(0);
      Set<String> replicas = probe.replicaSets("slow").get(tablet);
      int joiner = -1;
      int victim = -1;
      for (int i = 0; i < 4; i++) {
        String uuid = cluster.tabletServer(i).uuid();
        ListTabletsResponsePB.StatusPB s = probe.status(i, tablet);
        if (!replicas.contains(uuid)) {
          joiner = i;
        } else if (victim < 0 && s != null && s.getRole() != RaftRolePB.LEADER) {
          victim = i;
        }
      }
      assertThat(joiner).isNotNegative();
      assertThat(victim).isNotNegative();
      String joinerUuid = cluster.tabletServer(joiner).uuid();
      String victimUuid = cluster.tabletServer(victim).uuid();

      cluster.killTabletServer(victim);
      final int joinerIndex = joiner;
      await("the joiner copying").atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> probe.status(joinerIndex, tablet) != null);
      cluster.restartMaster(0);
      await("the tablet back to 3 live voters, the joiner among them")
          .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
          .ignoreExceptions() // the restarted master answers once it leads
          .until(() -> {
            Set<String> now = probe.replicaSets("slow").get(tablet);
            ListTabletsResponsePB.StatusPB s = probe.status(joinerIndex, tablet);
            return now != null && now.size() == 3 && now.contains(joinerUuid)
                && !now.contains(victimUuid) && s != null && s.getState().equals("RUNNING")
                && deletesOn(cluster, joinerIndex) == 0;
          });
      assertThat(deletesOn(cluster, joiner)).as("DeleteTablet calls received by the joiner")
          .isZero();
      for (String uuid : probe.replicaSets("slow").get(tablet)) {
        ListTabletsResponsePB.StatusPB s = probe.status(cluster.tabletServerIndex(uuid), tablet);
        assertThat(s).isNotNull();
        assertThat(s.getState()).isEqualTo("RUNNING");
      }
      // The same client: its token outlives the master's restart (the signing keys are in
      // the sys catalog).
      Map<Long, String> rows = TestRows.scanAll(client, client.openTable("slow"));
      assertThat(rows).hasSize(ROWS);
    }
  }

  /** DeleteTablet calls the server received; -1 while its metrics do not answer. */
  private static double deletesOn(MiniCluster cluster, int index) {
    return ServerMetrics.value(cluster.tabletServer(index), "delete_tablet_requests_total");
  }
}
