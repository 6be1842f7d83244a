package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.CreateTableOptions;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link ClusterTablets} on a real in-process cluster: 1 master, 3 tablet servers. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterTabletsTest {
  private static final String TABLE = "probed";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private MiniCluster cluster;
  private ClusterTablets tablets;

  @BeforeAll
  void startCluster(@TempDir Path tmp) {
    cluster = MiniCluster.builder().numTabletServers(3).dataRoot(tmp.resolve("c"))
        .tserverFlag("--heartbeat_interval_ms=300").build();
    tablets = cluster.tablets();
    Schema schema = Schema.forTable(List.of(
        ColumnSchema.builder("k", Type.INT64).key(true).build(),
        ColumnSchema.builder("v", Type.STRING).build()));
    cluster.newClient().createTable(TABLE, schema,
        new CreateTableOptions().addHashPartitions(List.of("k"), 2).setNumReplicas(3));
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  /** Each test starts from every server running and every tablet with 3 voters. */
  @BeforeEach
  void everyTabletHasThreeVoters() {
    for (int i = 0; i < cluster.numTabletServers(); i++) {
      if (!cluster.tabletServer(i).running()) {
        cluster.startTabletServer(i);
      }
    }
    tablets.awaitVoters(TABLE, 3, WAIT);
  }

  @Test
  void findsEachTabletsReplicasAndLeader() {
    List<TabletReplicas> all = tablets.awaitVoters(TABLE, 3, WAIT);
    assertThat(all).hasSize(2);
    assertThat(all).extracting(TabletReplicas::tabletId)
        .containsExactlyElementsOf(tablets.tabletIds(TABLE));
    for (TabletReplicas t : all) {
      assertThat(t.replicaIndexes()).containsExactlyInAnyOrder(0, 1, 2);
      int leader = tablets.leaderIndex(t.tabletId());
      assertThat(leader).isBetween(0, 2);
      TabletReplicas one = tablets.tablet(t.tabletId());
      assertThat(one.replicas()).extracting(ServerInfo::uuid)
          .containsExactlyInAnyOrderElementsOf(t.replicas().stream().map(ServerInfo::uuid)
              .toList());
      assertThat(one.leader()).isPresent();
      assertThat(one.followers()).hasSize(2).extracting(ServerInfo::index)
          .doesNotContain(one.leaderIndex());
    }
    assertThat(tablets.ofTable(TABLE)).extracting(TabletReplicas::tabletId)
        .containsExactlyElementsOf(tablets.tabletIds(TABLE));
  }

  @Test
  void unknownTabletsAndTablesAreNotFound() {
    assertThatThrownBy(() -> tablets.tablet("0123456789abcdef"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageContaining("0123456789abcdef");
    assertThatThrownBy(() -> tablets.awaitVoters("no_such_table", 3, WAIT))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
  }

  @Test
  void transfersLeadershipToTheReplicaAsked() {
    String tablet = tablets.tabletIds(TABLE).get(0);
    int from = tablets.awaitLeader(tablet, WAIT).index();
    int to = (from + 1) % 3;
    ServerInfo now = tablets.transferLeadership(tablet, to, WAIT);
    assertThat(now.index()).isEqualTo(to);
    assertThat(tablets.leaderIndex(tablet)).isEqualTo(to);
  }

  @Test
  void aStoppedServerLeavesTabletsShortAndTheTimeoutNamesThem() {
    cluster.stopTabletServer(2);
    List<String> ids = tablets.tabletIds(TABLE);
    assertThat(tablets.awaitVoters(TABLE, 2, WAIT)).hasSize(2);
    assertThatThrownBy(() -> tablets.awaitVoters(TABLE, 3, Duration.ofMillis(500)))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.TIMED_OUT))
        .hasMessageContaining(ids.get(0)).hasMessageContaining(ids.get(1))
        .hasMessageContaining("2 of 3 live voters");
  }

  @Test
  void restartsALeaderOrAFollowerInProcessButCannotKillOrPause() {
    String tablet = tablets.tabletIds(TABLE).get(1);
    ServerInfo follower = tablets.restartFollower(tablet);
    assertThat(follower.index()).isNotEqualTo(tablets.leaderIndex(tablet));
    assertThat(cluster.tabletServer(follower.index()).running()).isTrue();
    tablets.awaitVoters(TABLE, 3, WAIT);
    ServerInfo leader = tablets.restartLeader(tablet);
    assertThat(cluster.tabletServer(leader.index()).running()).isTrue();
    tablets.awaitVoters(TABLE, 3, WAIT);
    assertThatThrownBy(() -> tablets.killLeader(tablet))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_SUPPORTED));
    assertThatThrownBy(() -> tablets.pauseFollower(tablet))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_SUPPORTED));
  }

  @Test
  void flagsApplyByRestartAndTheLocationsCacheResizesInPlace() {
    tablets.restartWithFlags(1, "--scanner_ttl_ms=30000");
    assertThat(cluster.inProcessTabletServer(1)).isNotNull();
    tablets.restartWithFlags(1);
    tablets.setMasterLocationsCacheCapacityMb(0, 0);
    assertThat(tablets.tabletIds(TABLE)).hasSize(2);
    tablets.setMasterLocationsCacheCapacityMb(0, 128);
  }
}
