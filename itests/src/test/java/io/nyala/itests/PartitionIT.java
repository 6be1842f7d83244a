package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.StatusRuntimeException;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.GetMasterRegistrationResponsePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.rpc.Channels;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.master.MasterServer;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NetworkPartition;
import io.nyala.minicluster.NyalaCluster;
import io.nyala.minicluster.ServerInfo;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Raft under an injected network partition (docs/testing.md, "Network partitions"): a tablet's
 * leader cut off from its two followers stops serving and the majority takes over, losing no
 * acknowledged row; the leader master cut off from the other two is replaced, and both follow
 * the new leader once healed. Short election timeouts keep each election about a second.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PartitionIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String MIN_ELECTION = "--raft_election_timeout_min_ms=500";
  private static final String MAX_ELECTION = "--raft_election_timeout_max_ms=1000";

  @Test
  @NyalaCluster(tservers = 3, lifecycle = NyalaCluster.Lifecycle.PER_METHOD,
      tserverFlags = {MIN_ELECTION, MAX_ELECTION, "--heartbeat_interval_ms=300"})
  void cutOffTabletLeaderStopsServingAndTheMajorityLosesNoAcknowledgedRow(MiniCluster cluster) {
    try (TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(60_000).defaultRpcTimeoutMs(2_000).build()) {
      NyalaTable table = client.createTable("partitioned", TestRows.schema(),
          new CreateTableOptions().setNumReplicas(3));
      String tablet = cluster.tablets().awaitVoters("partitioned", 3, WAIT).get(0).tabletId();
      TestRows.insert(client, table, 0, 100);
      int old = cluster.tablets().awaitLeader(tablet, WAIT).index();
      List<Integer> followers = others(old, 3);

      long t0 = System.nanoTime();
      NetworkPartition cut = cluster.partition(List.of(cluster.tabletServer(old)),
          servers(followers, cluster::tabletServer));
      await("old leader " + probe.info(old).name() + " steps down").atMost(WAIT)
          .until(() -> role(probe, old, tablet) != RaftRolePB.LEADER);
      long steppedDownMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      String read = readLatest(probe, old, tablet);
      String write = writeDirect(probe, old, tablet, table.getSchema());
      assertThat(read).as("a READ_LATEST scan of the cut-off old leader").isNotEqualTo("OK");
      assertThat(write).as("a write sent to the cut-off old leader").isNotEqualTo("OK");
      int next = await("a follower leads").atMost(WAIT)
          .until(() -> probe.leaderIndex(tablet), followers::contains);
      System.out.printf("PartitionIT: tablet leader %s cut off: stepped down after %d ms, %s "
              + "leads after %d ms; the old leader answered a scan %s, a write %s%n",
          probe.info(old).name(), steppedDownMs, probe.info(next).name(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), read, write);
      TestRows.insert(client, table, 100, 200);

      cut.heal();
      Set<Long> acked = LongStream.range(0, 200).boxed().collect(Collectors.toSet());
      ReplicaScans.awaitCaughtUp(probe, tablet, 3);
      for (int i = 0; i < 3; i++) {
        assertThat(ReplicaScans.keysServedAsLeader(probe, tablet, i))
            .as("rows on %s (old leader %s, new %s)", probe.info(i).name(),
                probe.info(old).name(), probe.info(next).name())
            .isEqualTo(acked);
      }
    }
  }

  @Test
  @NyalaCluster(masters = 3, tservers = 1, lifecycle = NyalaCluster.Lifecycle.PER_METHOD,
      masterFlags = {MIN_ELECTION, MAX_ELECTION}, tserverFlags = "--heartbeat_interval_ms=300")
  void cutOffLeaderMasterIsReplacedAndFollowsOnceHealed(MiniCluster cluster) {
    awaitEveryMasterHoldsATable(cluster, "before_cut");
    int old = awaitLeaderMaster(cluster, -1);
    List<ServerInfo> majority = servers(others(old, 3), cluster::master);
    long t0 = System.nanoTime();
    NetworkPartition cut = cluster.partition(List.of(cluster.master(old)), majority);
    int next = awaitLeaderMaster(cluster, old);
    System.out.printf("PartitionIT: leader master %s cut off: %s serves as leader after %d ms%n",
        cluster.master(old).name(), cluster.master(next).name(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    // The tablet server's heartbeats reach the new leader, which sees it live.
    await("the new leader master sees the tablet server").atMost(WAIT).ignoreExceptions()
        .until(() -> {
          ListTabletServersResponsePB r = tabletServers(cluster, cluster.master(next));
          return !NyalaException.isError(r.getError())
              && r.getServersList().stream().anyMatch(e -> e.getLive());
        });
    try (NyalaClient client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(60_000).defaultAdminOperationTimeoutMs(60_000)
        .defaultRpcTimeoutMs(2_000).build()) {
      // DDL reaches the new leader, and so do the reports of the new tablet.
      NyalaTable table = client.createTable("during_cut", TestRows.schema(),
          new CreateTableOptions().setNumReplicas(1));
      TestRows.insert(client, table, 0, 10);
      assertThat(TestRows.scanAll(client, table)).hasSize(10);
    }
    await("the cut-off old leader master steps down").atMost(WAIT).ignoreExceptions()
        .until(() -> registration(cluster, cluster.master(old)).getRole()
            != RaftRolePB.LEADER);

    cut.heal();
    String leaderUuid = cluster.master(next).uuid();
    await("old leader master follows " + cluster.master(next).name()).atMost(WAIT)
        .ignoreExceptions().untilAsserted(() -> {
          assertThat(registration(cluster, cluster.master(old)).getRole())
              .isEqualTo(RaftRolePB.FOLLOWER);
          ListTabletServersResponsePB r = tabletServers(cluster, cluster.master(old));
          assertThat(r.getError().getCode().name()).isEqualTo(StatusCode.NOT_LEADER.name());
          assertThat(r.getError().getLeaderUuid()).isEqualTo(leaderUuid);
        });
    assertThat(cluster.leaderMasterIndex()).isEqualTo(next);
  }

  /** The role of server {@code i}'s replica of {@code tablet}; null if it does not answer. */
  private static RaftRolePB role(TabletProbe probe, int i, String tablet) {
    ListTabletsResponsePB.StatusPB s = probe.status(i, tablet);
    return s == null ? null : s.getRole();
  }

  /**
   * A fresh READ_LATEST scan sent straight to server {@code i}: "OK" if it answered with data,
   * else its error code or the transport's.
   */
  private static String readLatest(TabletProbe probe, int i, String tablet) {
    try {
      ScanResponsePB r = probe.tserver(i, 3_000).scan(ScanRequestPB.newBuilder()
          .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tablet)
              .addProjectedColumns("key").setReadMode(ReadModePB.READ_LATEST))
          .setBatchSizeRows(10).setCloseScanner(true).build());
      return NyalaException.isError(r.getError()) ? r.getError().getCode().name() : "OK";
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode().name();
    }
  }

  /**
   * An insert of a row no one acknowledges, sent straight to server {@code i}: "OK" if it was
   * applied, else the error code or the transport's.
   */
  private static String writeDirect(TabletProbe probe, int i, String tablet, Schema schema) {
    BitSet all = new BitSet();
    all.set(0, schema.columnCount());
    long k = 1_000_000;
    PartialRow row = PartialRow.of(schema, new Object[] {k, TestRows.name(k), TestRows.num(k),
        TestRows.dbl(k)}, all);
    try {
      WriteResponsePB r = probe.tserver(i, 3_000).write(WriteRequestPB.newBuilder()
          .setTabletId(tablet).setSchema(schema.toPb()).setRowOperations(RowOperations.encode(
              schema, List.of(new RowOperations.Op(RowOpType.INSERT, row)))).build());
      return NyalaException.isError(r.getError()) ? r.getError().getCode().name() : "OK";
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode().name();
    }
  }

  /**
   * Creates {@code name} and waits until every master's catalog holds it. Ratis does not count
   * the vote of a member whose log is empty once the group has committed entries
   * (docs/decisions.md, "A member that has received nothing cannot help elect"): a cut that
   * comes before the first leader's appends reached a follower leaves the other two unable to
   * elect. One CI run cut the leader off 2.2 s after it was elected, master-2's log was still
   * empty, and no leader followed in 30 s.
   */
  private static void awaitEveryMasterHoldsATable(MiniCluster cluster, String name) {
    try (NyalaClient client = cluster.clientBuilder().defaultAdminOperationTimeoutMs(60_000)
        .build()) {
      client.createTable(name, TestRows.schema(), new CreateTableOptions().setNumReplicas(1));
    }
    for (int i = 0; i < cluster.numMasters(); i++) {
      MasterServer m = cluster.inProcessMaster(i);
      await(cluster.master(i).name() + " holds table " + name).atMost(WAIT)
          .until(() -> m.catalog().catalog().read(st -> st.tableByName(name) != null));
    }
  }

  private static int awaitLeaderMaster(MiniCluster cluster, int not) {
    return await("a leader master other than " + not).atMost(WAIT)
        .until(cluster::leaderMasterIndex, i -> i >= 0 && i != not);
  }

  private static GetMasterRegistrationResponsePB registration(MiniCluster cluster,
      ServerInfo master) {
    return onMaster(cluster, master, stub -> stub.getMasterRegistration(
        GetMasterRegistrationRequestPB.getDefaultInstance()));
  }

  private static ListTabletServersResponsePB tabletServers(MiniCluster cluster,
      ServerInfo master) {
    return onMaster(cluster, master, stub -> stub.listTabletServers(
        ListTabletServersRequestPB.getDefaultInstance()));
  }

  /**
   * One call to {@code master} from the test, with the harness's certificate (ListTabletServers
   * needs a user or a server); the harness is none of the cluster's servers, so no partition
   * drops it.
   */
  private static <T> T onMaster(MiniCluster cluster, ServerInfo master,
      Function<MasterServiceGrpc.MasterServiceBlockingStub, T> call) {
    try (Channels channels = cluster.newHarnessChannels()) {
      return call.apply(MasterServiceGrpc.newBlockingStub(channels.get(master.rpcAddress()))
          .withDeadlineAfter(3, TimeUnit.SECONDS));
    }
  }

  private static List<Integer> others(int index, int n) {
    return IntStream.range(0, n).filter(i -> i != index).boxed().toList();
  }

  private static List<ServerInfo> servers(List<Integer> indexes, IntFunction<ServerInfo> info) {
    return indexes.stream().map(info::apply).toList();
  }
}
