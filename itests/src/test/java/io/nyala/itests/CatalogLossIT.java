package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.HostPort;
import io.nyala.common.fs.AtomicFiles;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.master.catalog.CatalogState;
import io.nyala.minicluster.MiniCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A re-formatted master deletes nothing (docs/data-safety.md, "Deletes"): the master's
 * directories are wiped and it restarts with an empty catalog and a new cluster id. Every tablet
 * server keeps every replica (in ListTablets and on disk), refuses the new cluster id, and says
 * so in the log; with the old catalog restored every row reads back.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CatalogLossIT {
  private static final int ROWS = 300;

  @Test
  void wipedMasterCatalogDeletesNoTabletAndTserversRefuseTheNewClusterId() throws Exception {
    try (LogCapture log = new LogCapture();
        MiniCluster cluster = MiniCluster.builder().numMasters(1).numTabletServers(3)
            .masterFlag("--heartbeat_interval_ms=200")
            .tserverFlag("--heartbeat_interval_ms=200").build();
        TabletProbe probe = new TabletProbe(cluster)) {
      cluster.start();
      try (NyalaClient client = cluster.newClient()) {
        NyalaTable table = client.createTable("kept", TestRows.schema(),
            new CreateTableOptions().addHashPartitions(List.of("key"), 4).setNumReplicas(3));
        TestRows.insert(client, table, 0, ROWS);
      }
      String oldId = cluster.inProcessMaster(0).catalog().catalog().read(CatalogState::clusterId);
      Map<Integer, Set<String>> hosted = new HashMap<>();
      for (int i = 0; i < 3; i++) {
        hosted.put(i, hosted(probe, i));
        assertThat(hosted.get(i)).hasSize(4);
      }

      Path masterDir = cluster.dataRoot().resolve(cluster.master(0).name());
      Path saved = cluster.dataRoot().resolve("saved-master");
      cluster.stopMaster(0);
      copyTree(masterDir, saved);
      AtomicFiles.deleteTree(masterDir);
      cluster.startMaster(0);
      await().atMost(Duration.ofSeconds(20)).until(() -> cluster.inProcessMaster(0).isLeader());
      String newId = cluster.inProcessMaster(0).catalog().catalog().read(CatalogState::clusterId);
      assertThat(newId).isNotEmpty().isNotEqualTo(oldId);

      // Each tablet server hears the new master; before the fix it got every tablet deleted.
      await("every tablet server refuses the new cluster id, or loses a tablet")
          .atMost(Duration.ofSeconds(20)).until(() -> refusals(log, oldId, newId) >= 3
              || hosted.entrySet().stream().anyMatch(e -> !hosted(probe, e.getKey())
                  .containsAll(e.getValue())));
      for (int i = 0; i < 3; i++) {
        assertThat(hosted(probe, i)).as("tablets of tablet server %d", i)
            .containsExactlyInAnyOrderElementsOf(hosted.get(i));
        Path tserverDir = cluster.dataRoot().resolve(cluster.tabletServer(i).name());
        for (String tablet : hosted.get(i)) {
          assertThat(tserverDir.resolve("wal").resolve("tablet-meta").resolve(tablet)).exists();
        }
        assertThat(Files.readString(tserverDir.resolve("wal").resolve("cluster_id"),
            StandardCharsets.UTF_8).trim()).isEqualTo(oldId);
        assertThat(cluster.inProcessTabletServer(i).metrics().value("delete_tablet_requests_total"))
            .isZero();
      }
      assertThat(log.warnings()).filteredOn(w -> w.contains(newId) && w.contains(oldId)
          && w.contains("restore")).hasSizeGreaterThanOrEqualTo(3);
      // An admin call that names the new cluster is refused outright.
      String tablet = hosted.get(0).iterator().next();
      DeleteTabletResponsePB refused = deleteAs(cluster, cluster.tabletServer(0).rpcAddress(),
          tablet, newId);
      assertThat(refused.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
      assertThat(refused.getError().getMessage()).contains(newId).contains(oldId);
      assertThat(hosted(probe, 0)).contains(tablet);

      // The operator restores the catalog: every row is there.
      cluster.stopMaster(0);
      AtomicFiles.deleteTree(masterDir);
      copyTree(saved, masterDir);
      cluster.startMaster(0);
      try (NyalaClient client = cluster.clientBuilder()
          .defaultOperationTimeoutMs(30_000).build()) {
        Map<Long, String> rows = TestRows.scanAll(client, client.openTable("kept"));
        assertThat(rows).hasSize(ROWS);
      }
    }
  }

  private static long refusals(LogCapture log, String oldId, String newId) {
    return log.warnings().stream().filter(w -> w.contains("ClusterIdGuard")
        && w.contains(oldId) && w.contains(newId)).count();
  }

  /** The tablets tablet server {@code index} lists (empty if it does not answer). */
  private static Set<String> hosted(TabletProbe probe, int index) {
    Set<String> out = probe.hosted(index);
    return out == null ? Set.of() : out;
  }

  private static DeleteTabletResponsePB deleteAs(MiniCluster cluster, HostPort tserver,
      String tablet, String clusterId) {
    // The harness's certificate: DeleteTablet is an admin call, for servers only.
    try (Channels channels = cluster.newHarnessChannels()) {
      return TabletServerAdminServiceGrpc.newBlockingStub(channels.get(tserver))
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .deleteTablet(DeleteTabletRequestPB.newBuilder().setTabletId(tablet)
              .setTabletDropped(true).setClusterId(clusterId).setReason("test").build());
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
