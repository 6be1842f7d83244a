package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.env.DiskFaults;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.minicluster.MiniCluster;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.tablet.BlockTabletStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Disk faults injected under one tablet server's data dir (docs/data-safety.md, "Disk faults"),
 * one cluster of 4 tablet servers and two single-tablet tables of 3 replicas:
 * <ul>
 *   <li>ENOSPC: the flush fails without failing the replica, the rows stay served (by that very
 *       replica as leader too), and the flush succeeds once space is back;
 *   <li>EIO on the block fsync of a flush: the flush fails, the replica goes FAILED with an
 *       error naming the tablet and the fault, the master re-replicates it on the fourth server,
 *       and every acknowledged row is read back.
 * </ul>
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DiskFaultIT {
  private static final int ROWS = 200;

  @Test
  void fullDiskDelaysFlushesAndEioFailsTheReplicaWhichIsReReplicated() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().numMasters(1).numTabletServers(4)
            .masterFlag("--tserver_unresponsive_timeout_ms=3000")
            .masterFlag("--heartbeat_interval_ms=300")
            .masterFlag("--rereplication_retry_ms=2000")
            .tserverFlag("--heartbeat_interval_ms=300").build();
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(60_000).build()) {
      cluster.start();
      fullDisk(cluster, probe, client);
      eioOnFlush(cluster, probe, client);
    }
  }

  private static void fullDisk(MiniCluster cluster, TabletProbe probe, NyalaClient client) {
    NyalaTable table = createTable(client, "full");
    String tablet = probe.tabletIds("full").get(0);
    int v = hostOf(cluster, probe, "full", tablet);
    TabletServer ts = cluster.inProcessTabletServer(v);
    ts.diskFaults().inject(DiskFaults.Op.WRITE, DiskFaults.Kind.ENOSPC, dataDir(cluster, v));
    TestRows.insert(client, table, 0, ROWS); // durable in the Raft log: acknowledged
    awaitApplied(ts, tablet);
    assertThatThrownBy(() -> ts.snapshotTablet(tablet))
        .hasMessageContaining("tablet " + tablet + ": flush failed, the disk is full")
        .hasMessageContaining("No space left on device");
    BlockTabletStore store = ts.tabletManager().get(tablet).blockStore();
    assertThat(store.diskFull()).isNotNull();
    assertThat(probe.status(v, tablet).getState()).isEqualTo("RUNNING");
    assertThat(ReplicaScans.keysServedAsLeader(probe, tablet, v))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    TestRows.insert(client, table, ROWS, ROWS + 10); // writes go on too

    ts.diskFaults().clear();
    await("a flush once space is back").atMost(Duration.ofSeconds(20))
        .ignoreExceptions().until(() -> ts.snapshotTablet(tablet) > 0);
    assertThat(store.diskFull()).isNull();
    assertThat(TestRows.scanAll(client, table)).hasSize(ROWS + 10);
  }

  private static void eioOnFlush(MiniCluster cluster, TabletProbe probe, NyalaClient client) {
    NyalaTable table = createTable(client, "eio");
    String tablet = probe.tabletIds("eio").get(0);
    int v = hostOf(cluster, probe, "eio", tablet);
    String victimUuid = cluster.tabletServer(v).uuid();
    TabletServer ts = cluster.inProcessTabletServer(v);
    TestRows.insert(client, table, 0, ROWS);
    Path data = dataDir(cluster, v);
    ts.diskFaults().inject(DiskFaults.Op.SYNC, DiskFaults.Kind.EIO, data);
    TestRows.insert(client, table, ROWS, 2 * ROWS);
    awaitApplied(ts, tablet);
    // The maintenance thread may flush first; either way the replica fails.
    try {
      ts.snapshotTablet(tablet);
    } catch (RuntimeException expected) {
      // checked through the replica's state below
    }
    await("the replica FAILED").atMost(Duration.ofSeconds(10)).until(() -> {
      ListTabletsResponsePB.StatusPB s = probe.status(v, tablet);
      return s != null && s.getState().equals("FAILED");
    });
    assertThat(probe.status(v, tablet).getError()).contains(tablet)
        .contains("flush failed on a disk error").contains("injected disk fault: EIO on sync")
        .contains(data.toString());

    await("the tablet back to 3 running replicas elsewhere").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(() -> runningElsewhere(cluster, probe, "eio", tablet, victimUuid));
    Map<Long, String> rows = TestRows.scanAll(client, client.openTable("eio"));
    assertThat(rows).hasSize(2 * ROWS);
    rows.forEach((k, val) -> assertThat(val).isEqualTo(TestRows.expected(k)));
  }

  private static NyalaTable createTable(NyalaClient client, String name) {
    return client.createTable(name, TestRows.schema(),
        new CreateTableOptions().setNumReplicas(3));
  }

  /** The index of a tablet server holding a replica of {@code tablet}. */
  private static int hostOf(MiniCluster cluster, TabletProbe probe, String table, String tablet) {
    Set<String> replicas = probe.replicaSets(table).get(tablet);
    return cluster.tabletServerIndex(replicas.iterator().next());
  }

  private static Path dataDir(MiniCluster cluster, int index) {
    return cluster.dataRoot().resolve(cluster.tabletServer(index).name()).resolve("data");
  }

  /** Waits until the replica on {@code ts} applied what its leader has (a follower may lag). */
  private static void awaitApplied(TabletServer ts, String tablet) {
    await("replica applied the rows").atMost(Duration.ofSeconds(20)).until(() -> {
      BlockTabletStore s = ts.tabletManager().get(tablet).blockStore();
      return s != null && s.liveRowCount() > 0 && s.memoryBytes() > 0;
    });
  }

  /** 3 replicas in the master's locations, none on {@code victim}, each RUNNING there. */
  private static boolean runningElsewhere(MiniCluster cluster, TabletProbe probe, String table,
      String tablet, String victim) {
    Set<String> replicas = probe.replicaSets(table).getOrDefault(tablet, Set.of());
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
}
