package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.env.Env;
import io.nyala.common.fs.AtomicFiles;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import io.nyala.tserver.replica.TabletReplica;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tablet server restarted with its WAL dir wiped (tablet metadata, superblocks and Raft logs
 * gone, data dirs intact) refuses to start, naming the dir, and deletes no block: the startup
 * orphan-block GC would otherwise take every block for garbage.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@NyalaCluster(tservers = 1)
class WipedWalDirIT {
  @Test
  void aTserverWithAWipedWalDirRefusesToStartAndDeletesNoBlock(MiniCluster cluster,
      NyalaClient client) throws Exception {
    NyalaTable table = client.createTable("wiped", TestRows.schema(),
        new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(1));
    TestRows.insert(client, table, 0, 500);
    TabletServer ts = cluster.inProcessTabletServer(0);
    for (TabletReplica r : ts.tabletManager().replicas()) {
      r.stateMachine().store().flush();
    }
    Path root = cluster.dataRoot().resolve(cluster.tabletServer(0).name());
    Path wal = root.resolve("wal");
    Path blocks = root.resolve("data").resolve("blocks");
    cluster.stopTabletServer(0);
    long before = liveBlocks(blocks);
    assertThat(before).as("live blocks in %s after the flush", blocks).isPositive();

    AtomicFiles.deleteTree(wal);
    Files.createDirectories(wal);
    Throwable refused = catchThrowable(() -> cluster.startTabletServer(0));
    cluster.stopTabletServer(0);

    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(refused).as("start with an empty WAL dir").isNotNull();
    if (refused != null) {
      soft.assertThat(refused.getMessage()).contains(wal.toString()).contains("WAL dir")
          .contains("no instance file");
    }
    soft.assertThat(liveBlocks(blocks)).as("live blocks in %s after the start attempt", blocks)
        .isEqualTo(before);
    soft.assertAll();
  }

  /** The live blocks the log block manager finds, opened read-only (as `nyala fs check`). */
  private static long liveBlocks(Path blocks) {
    try (LogBlockManager bm = LogBlockManager.open(
        LbmOptions.defaults(Env.plain(), List.of(blocks)).withRepair(false))) {
      return bm.startupReport().liveBlocks();
    }
  }
}
