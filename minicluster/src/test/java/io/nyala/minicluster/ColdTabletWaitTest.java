package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wait for voters on a tablet that went cold (every replica hibernated, as a table left idle
 * through a long fault does) wakes it and ends once it serves, instead of running out: a cold
 * replica is no live voter, and nothing else would wake it.
 */
@Timeout(120)
class ColdTabletWaitTest {
  /** Short, but longer than a poll of the wait, so that the woken tablet is seen awake. */
  private static final long IDLE_MS = 2_000;

  @Test
  void awaitVotersWakesAColdTablet(@TempDir Path tmp) {
    try (MiniCluster cluster = MiniCluster.builder().numTabletServers(3)
        .dataRoot(tmp.resolve("c")).tserverFlag("--heartbeat_interval_ms=300")
        .tserverFlag("--tablet_hibernate_after_ms=" + IDLE_MS).build()) {
      Schema schema = Schema.forTable(List.of(
          ColumnSchema.builder("k", Type.INT64).key(true).build(),
          ColumnSchema.builder("v", Type.STRING).build()));
      cluster.newClient().createTable("cold", schema,
          new CreateTableOptions().addHashPartitions(List.of("k"), 2).setNumReplicas(3));
      List<String> ids = cluster.tablets().tabletIds("cold");
      await("every replica hibernated").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200)).until(() -> allHibernated(cluster, ids));

      List<TabletReplicas> awake = cluster.tablets().awaitVoters("cold", 3,
          Duration.ofSeconds(30));

      assertThat(awake).hasSize(2).allSatisfy(t -> assertThat(t.leader()).isPresent());
    }
  }

  private static boolean allHibernated(MiniCluster cluster, List<String> ids) {
    try (TabletView view = new TabletView(cluster)) {
      for (Map<String, ListTabletsResponsePB.StatusPB> statuses : view.allStatuses()) {
        if (statuses == null) {
          return false;
        }
        for (String id : ids) {
          ListTabletsResponsePB.StatusPB s = statuses.get(id);
          if (s == null || !"HIBERNATED".equals(s.getState())) {
            return false;
          }
        }
      }
      return true;
    }
  }
}
