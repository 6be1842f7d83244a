package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.master.MasterServer;
import io.nyala.minicluster.MiniCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Re-replication end to end (docs/architecture.md, "Master"): RF 3 on 4 tablet servers with a short
 * unresponsive timeout; one server stops for good; every tablet it held gets back to 3 live
 * replicas (by the master's locations and by the tservers' own tablet lists), the replacement
 * metric counts exactly those tablets, every row stays readable; when the stopped server comes
 * back, its evicted replicas are deleted.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReReplicationIT {
  private static final int VICTIM = 3;
  private static final int ROWS = 500;

  /**
   * Whether replicas hibernate after {@link Hibernation#SHORT_IDLE_MS}; then every replica is
   * cold when the server stops, so re-replication has to wake the groups it repairs, and a
   * healthy replica may be RUNNING or HIBERNATED.
   */
  boolean hibernating() {
    return false;
  }

  @Test
  void deadServersTabletsReturnToThreeLiveReplicas() throws Exception {
    MiniCluster.Builder builder = MiniCluster.builder().numMasters(1).numTabletServers(4)
        .masterFlag("--tserver_unresponsive_timeout_ms=3000")
        .masterFlag("--heartbeat_interval_ms=300")
        .tserverFlag("--heartbeat_interval_ms=300");
    if (hibernating()) {
      // Longer than any retry of the one insert batch, so the written tablets go cold soon.
      builder.tserverFlag(Hibernation.SHORT_IDLE_FLAG)
          .tserverFlag(Hibernation.retryWindowFlag(15_000));
    }
    try (MiniCluster cluster = builder.build();
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(60_000).build()) {
      cluster.start();
      NyalaTable table = client.createTable("rerep", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 6).setNumReplicas(3));
      TestRows.insert(client, table, 0, ROWS);
      MasterServer master = cluster.inProcessMaster(0);
      String victimUuid = cluster.tabletServer(VICTIM).uuid();
      Set<String> held = new HashSet<>();
      locations(master).forEach((tablet, replicas) -> {
        if (replicas.contains(victimUuid)) {
          held.add(tablet);
        }
      });
      assertThat(held).isNotEmpty();
      if (hibernating()) {
        for (String tablet : locations(master).keySet()) {
          Set<String> replicas = locations(master).get(tablet);
          await("replicas of tablet " + tablet + " hibernated").atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(100)).until(() -> replicas.stream().allMatch(
                  uuid -> isCold(probe.status(cluster.tabletServerIndex(uuid), tablet))));
        }
      }

      cluster.stopTabletServer(VICTIM);
      await("tablets of the stopped server back to 3 live replicas")
          .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
          .until(() -> held.stream().allMatch(t -> replicatedOnLive(cluster, probe, master, t)));
      assertThat(master.metrics().value("rereplication_replacements_total"))
          .isEqualTo(held.size());
      Map<Long, String> rows = TestRows.scanAll(client, client.openTable("rerep"));
      assertThat(rows).hasSize(ROWS);
      rows.forEach((k, v) -> assertThat(v).isEqualTo(TestRows.expected(k)));

      cluster.startTabletServer(VICTIM);
      await("evicted replicas deleted on the returning server").atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> {
            Set<String> hosted = probe.hosted(VICTIM);
            return hosted != null && held.stream().noneMatch(hosted::contains);
          });
    }
  }

  /** tablet id → uuids of its replicas, from the master. */
  private static Map<String, Set<String>> locations(MasterServer master) {
    GetTableLocationsResponsePB r = master.getTableLocations(GetTableLocationsRequestPB
        .newBuilder().setTable(TableIdentifierPB.newBuilder().setTableName("rerep"))
        .setMaxReturnedLocations(1000).build());
    Map<String, Set<String>> out = new HashMap<>();
    for (TabletLocationsPB t : r.getTabletLocationsList()) {
      Set<String> uuids = new HashSet<>();
      t.getReplicasList().forEach(rep -> uuids.add(rep.getTsInfo().getUuid()));
      out.put(t.getTabletId(), uuids);
    }
    return out;
  }

  private static boolean isCold(ListTabletsResponsePB.StatusPB s) {
    return s != null && Hibernation.HIBERNATED.equals(s.getState());
  }

  /**
   * 3 replicas in the locations, none on the victim, each RUNNING on its (live) tserver, or
   * HIBERNATED when replicas hibernate (a cold replica is a healthy one).
   */
  private boolean replicatedOnLive(MiniCluster cluster, TabletProbe probe,
      MasterServer master, String tablet) {
    Set<String> replicas = locations(master).get(tablet);
    if (replicas == null || replicas.size() != 3
        || replicas.contains(cluster.tabletServer(VICTIM).uuid())) {
      return false;
    }
    for (String uuid : replicas) {
      int index = cluster.tabletServerIndex(uuid);
      ListTabletsResponsePB.StatusPB s = probe.status(index, tablet);
      boolean healthy = s != null && (s.getState().equals("RUNNING")
          || (hibernating() && isCold(s)));
      if (!healthy) {
        return false;
      }
    }
    return true;
  }
}
