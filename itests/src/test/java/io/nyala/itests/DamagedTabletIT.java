package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.master.MasterServer;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.minicluster.MiniCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One damaged superblock of two on a tablet server (docs/data-safety.md, "Damage is contained"):
 * the server restarts, the other tablet serves there, the damaged replica is FAILED (on the
 * server's page, in its tablet list, in the master's reports) and is re-replicated from its
 * healthy peers: the tablet returns to 3 running voters elsewhere, every row is readable, and
 * the FAILED replica is deleted once the committed configuration excludes it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DamagedTabletIT {
  private static final int ROWS = 300;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void oneDamagedSuperblockFailsOnlyItsReplicaWhichIsReReplicated() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().numMasters(1).numTabletServers(4)
            .masterFlag("--tserver_unresponsive_timeout_ms=3000")
            .masterFlag("--heartbeat_interval_ms=300")
            .masterFlag("--rereplication_retry_ms=2000")
            .tserverFlag("--heartbeat_interval_ms=300").build();
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(60_000).build()) {
      cluster.start();
      NyalaTable table = client.createTable("damaged", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(3));
      TestRows.insert(client, table, 0, ROWS);
      Map<String, Set<String>> placed = probe.replicaSets("damaged");
      assertThat(placed).hasSize(2);
      List<String> tablets = List.copyOf(placed.keySet());
      String damaged = tablets.get(0);
      String healthy = tablets.get(1);
      // A server holding both tablets (2 tablets × 3 replicas on 4 servers: at least two do).
      int victim = -1;
      for (int i = 0; i < 4 && victim < 0; i++) {
        String uuid = cluster.tabletServer(i).uuid();
        if (placed.get(damaged).contains(uuid) && placed.get(healthy).contains(uuid)) {
          victim = i;
        }
      }
      String victimUuid = cluster.tabletServer(victim).uuid();
      for (String t : tablets) {
        // A follower may not have applied the rows yet: flush once it has some.
        int ts = victim;
        await("a superblock of " + t).atMost(Duration.ofSeconds(20))
            .until(() -> cluster.inProcessTabletServer(ts).snapshotTablet(t) > 0);
      }
      cluster.stopTabletServer(victim);
      Path superblock = cluster.dataRoot().resolve(cluster.tabletServer(victim).name())
          .resolve("wal").resolve("tablet-data").resolve(damaged);
      byte[] b = Files.readAllBytes(superblock);
      b[b.length / 2] ^= 0x5a;
      b[b.length / 3] ^= 0x5a;
      Files.write(superblock, b);
      cluster.startTabletServer(victim);

      int v = victim;
      ListTabletsResponsePB.StatusPB failed = probe.status(v, damaged);
      assertThat(failed.getState()).isEqualTo("FAILED");
      assertThat(failed.getError()).contains(damaged).contains(superblock.toString());
      // The home page counts the FAILED replica; it lists no tablet id (no web authentication).
      assertThat(get(cluster.tabletServer(v).webUrl() + "/")).contains("1 failed")
          .doesNotContain(damaged);
      MasterServer master = cluster.inProcessMaster(0);
      await("the master hears of the FAILED replica").atMost(Duration.ofSeconds(10))
          .until(() -> {
            ReplicaReports.ReplicaState s = master.catalog().reports().replica(damaged,
                victimUuid);
            return s != null && s.state() == TabletStatePB.FAILED
                || !placed(probe, damaged).contains(victimUuid);
          });
      await("the other tablet serves on the restarted server").atMost(Duration.ofSeconds(20))
          .until(() -> {
            ListTabletsResponsePB.StatusPB s = probe.status(v, healthy);
            return s != null && s.getState().equals("RUNNING");
          });

      await("the damaged tablet back to 3 running replicas elsewhere")
          .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300))
          .until(() -> runningElsewhere(cluster, probe, damaged, victimUuid));
      Map<Long, String> rows = TestRows.scanAll(client, client.openTable("damaged"));
      assertThat(rows).hasSize(ROWS);
      rows.forEach((k, val) -> assertThat(val).isEqualTo(TestRows.expected(k)));
      await("the FAILED replica deleted, the healthy one kept").atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(300)).until(() -> {
            Set<String> hosted = probe.hosted(v);
            return hosted != null && !hosted.contains(damaged) && hosted.contains(healthy);
          });
      assertThat(superblock).doesNotExist();
    }
  }

  private static Set<String> placed(TabletProbe probe, String tablet) {
    return probe.replicaSets("damaged").getOrDefault(tablet, Set.of());
  }

  /** 3 replicas in the master's locations, none on {@code victim}, each RUNNING there. */
  private static boolean runningElsewhere(MiniCluster cluster, TabletProbe probe, String tablet,
      String victim) {
    Set<String> replicas = placed(probe, tablet);
    if (replicas.size() != 3 || replicas.contains(victim)) {
      return false;
    }
    for (String uuid : replicas) {
      ListTabletsResponsePB.StatusPB s = probe.status(cluster.tabletServerIndex(uuid), tablet);
      if (s == null || !s.getState().equals("RUNNING")) {
        return false;
      }
    }
    return true;
  }

  private static String get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }
}
