package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.CreateTableOptions;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link ClusterTablets}' process faults on a cluster of server processes. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterTabletsProcessTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir
  Path tmp;

  @Test
  void killsTheLeaderAndPausesAFollowerOfATablet() {
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
        .numTabletServers(3).dataRoot(tmp.resolve("c"))
        .tserverFlag("--heartbeat_interval_ms=300").build()) {
      cluster.newClient().createTable("faults", Schema.forTable(List.of(
              ColumnSchema.builder("k", Type.INT64).key(true).build())),
          new CreateTableOptions().addHashPartitions(List.of("k"), 2).setNumReplicas(3));
      ClusterTablets tablets = cluster.tablets();
      String tablet = tablets.awaitVoters("faults", 3, WAIT).get(0).tabletId();

      ServerInfo killed = tablets.killLeader(tablet);
      assertThat(cluster.tabletServer(killed.index()).running()).isFalse();
      ServerInfo next = tablets.awaitLeader(tablet, WAIT);
      assertThat(next.index()).isNotEqualTo(killed.index());
      tablets.awaitVoters("faults", 2, WAIT);
      cluster.startTabletServer(killed.index());
      tablets.awaitVoters("faults", 3, WAIT);

      ServerInfo paused = tablets.pauseFollower(tablet);
      assertThat(tablets.tablet(tablet).leaderIndex()).isNotEqualTo(paused.index());
      tablets.resume(paused);
      tablets.awaitVoters("faults", 3, WAIT);
    }
  }
}
