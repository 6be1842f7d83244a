package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link MiniCluster#partition} cuts and heals both Nyala's RPC (heartbeats) and Raft (the
 * masters' group) in both process modes. Counters are read from {@code /metrics}, so the same
 * checks hold for server processes.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class NetworkPartitionTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String DROPPED = "network_partition_dropped_calls_total";

  /**
   * Kept when a test fails: its servers' logs are the evidence (docs/architecture.md, "Testing
   * with the minicluster").
   */
  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path tmp;

  @ParameterizedTest
  @EnumSource(ProcessMode.class)
  void cutsAndHealsRpcAndRaft(ProcessMode mode) {
    try (MiniCluster cluster = MiniCluster.builder().processMode(mode).numMasters(3)
        .numTabletServers(1).dataRoot(tmp.resolve("c"))
        .masterFlag("--raft_election_timeout_min_ms=500")
        .masterFlag("--raft_election_timeout_max_ms=1000")
        .tserverFlag("--heartbeat_interval_ms=200").build()) {
      int old = awaitLeaderMaster(cluster, -1);

      // RPC: the tablet server's heartbeats no longer reach the leader master.
      NetworkPartition rpcCut = cluster.partition(List.of(cluster.tabletServer(0)),
          cluster.servers().subList(0, 3));
      await().atMost(WAIT).until(() -> dropped(cluster.master(old)) > 0);
      rpcCut.heal();

      // Raft: the leader alone; the other two elect one of them.
      List<ServerInfo> others = otherMasters(cluster, old);
      NetworkPartition raftCut = cluster.partition(List.of(cluster.master(old)), others);
      int next = awaitLeaderMaster(cluster, old);
      assertThat(others.stream().mapToDouble(NetworkPartitionTest::dropped).sum())
          .as("the old leader's appends were dropped").isPositive();
      raftCut.heal();
      raftCut.heal();

      // Healed: with the new leader cut off, the old one and the third must talk to elect.
      cluster.partition(List.of(cluster.master(next)), otherMasters(cluster, next));
      int third = awaitLeaderMaster(cluster, next);
      assertThat(third).isNotEqualTo(next);
      cluster.healAllPartitions();
      cluster.waitForTabletServers();
    }
  }

  @ParameterizedTest
  @EnumSource(value = ProcessMode.class, names = "IN_PROCESS")
  void refusesBadSidesNamingTheServer(ProcessMode mode) {
    try (MiniCluster cluster = MiniCluster.builder().processMode(mode).numTabletServers(1)
        .dataRoot(tmp.resolve("c")).build()) {
      assertThatThrownBy(() -> cluster.partition(List.of(), List.of(cluster.master(0))))
          .hasMessageContaining("side is empty");
      assertThatThrownBy(() -> cluster.partition(List.of(cluster.master(0)),
          List.of(cluster.tabletServer(0), cluster.master(0))))
          .hasMessageContaining("server master-1 is on both sides");
    }
    try (MiniCluster off = MiniCluster.builder().processMode(mode).numTabletServers(1)
        .networkPartitions(false).dataRoot(tmp.resolve("off")).build()) {
      assertThatThrownBy(() -> off.partition(List.of(off.master(0)),
          List.of(off.tabletServer(0))))
          .hasMessageContaining("built with networkPartitions(false)");
    }
  }

  /** Waits until a master other than {@code not} leads; returns its index. */
  private static int awaitLeaderMaster(MiniCluster cluster, int not) {
    return await().atMost(WAIT).until(cluster::leaderMasterIndex, i -> i >= 0 && i != not);
  }

  private static List<ServerInfo> otherMasters(MiniCluster cluster, int index) {
    return IntStream.range(0, cluster.numMasters()).filter(i -> i != index)
        .mapToObj(cluster::master).toList();
  }

  /** The server's dropped-call counter from its {@code /metrics}; -1 if it does not answer. */
  private static double dropped(ServerInfo server) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create(server.webUrl() + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      Matcher m = Pattern.compile("(?m)^" + DROPPED + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$")
          .matcher(r.body());
      return m.find() ? Double.parseDouble(m.group(1)) : -1;
    } catch (Exception e) {
      return -1;
    }
  }
}
