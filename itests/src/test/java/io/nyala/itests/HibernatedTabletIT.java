package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.nyala.client.AlterTableOptions;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.HostPort;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.rpc.Channels;
import io.nyala.common.schema.Type;
import io.nyala.master.MasterServer;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The master and client with real hibernated tablets (docs/dense-nodes.md): the tablet servers
 * list them as hibernated, their locations name no leader, an AlterTable reaches them through a
 * replica that wakes the group, and a client writes to and scans a cold table.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HibernatedTabletIT {
  private static final int TABLETS = 2;

  @Test
  @NyalaCluster(tservers = 3, lifecycle = NyalaCluster.Lifecycle.PER_METHOD,
      tserverFlags = {"--heartbeat_interval_ms=300", "--tablet_hibernate_after_ms=300"})
  void coldTabletsAreListedHaveNoLeaderAndWakeForAnAlterAWriteAndAScan(MiniCluster cluster) {
    try (NyalaClient client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(30_000).defaultAdminOperationTimeoutMs(30_000).build()) {
      HostPort m = cluster.master(0).rpcAddress();
      // The harness's certificate: ListTabletServers needs a user or a server.
      Channels channels = cluster.newHarnessChannels();
      ManagedChannel channel = channels.get(m);
      try {
        MasterServiceGrpc.MasterServiceBlockingStub master =
            MasterServiceGrpc.newBlockingStub(channel);
        for (String t : List.of("altered", "written")) {
          client.createTable(t, TestRows.schema(), new CreateTableOptions()
              .addHashPartitions(List.of("key"), TABLETS).setNumReplicas(3));
        }

        await("every replica hibernated").atMost(Duration.ofSeconds(45))
            .untilAsserted(() -> assertThat(servers(master)).hasSize(3).allSatisfy(e -> {
              assertThat(e.getNumHibernatedReplicas()).isEqualTo(2 * TABLETS);
              assertThat(e.getNumAwakeReplicas()).isZero();
            }));
        for (String t : List.of("altered", "written")) {
          assertThat(locations(master, t)).hasSize(TABLETS).allSatisfy(l -> assertThat(
              l.getReplicasList()).hasSize(3).allSatisfy(r -> assertThat(r.getRole())
                  .isEqualTo(RaftRolePB.FOLLOWER)));
        }

        NyalaTable altered = client.alterTable("altered", new AlterTableOptions()
            .addNullableColumn("note", Type.STRING));
        assertThat(altered.getSchema().columns()).hasSize(TestRows.schema().columns().size() + 1);

        NyalaTable written = client.openTable("written");
        TestRows.insert(client, written, 0, 50);
        assertThat(TestRows.scanAll(client, written)).hasSize(50);
        await("the woken replicas reported awake").atMost(Duration.ofSeconds(10))
            .until(() -> servers(master).stream()
                .mapToInt(ListTabletServersResponsePB.Entry::getNumAwakeReplicas).sum() > 0);
      } finally {
        channels.close();
      }
    }
  }

  /**
   * Liveness stays per tablet server: the cold replicas of a stopped server are replaced, the
   * master waking each group through a live replica.
   */
  @Test
  @NyalaCluster(tservers = 4, lifecycle = NyalaCluster.Lifecycle.PER_METHOD,
      masterFlags = "--tserver_unresponsive_timeout_ms=3000",
      tserverFlags = {"--heartbeat_interval_ms=300", "--tablet_hibernate_after_ms=300"})
  void aStoppedServersColdReplicasAreReplaced(MiniCluster cluster) {
    try (NyalaClient client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(30_000).defaultAdminOperationTimeoutMs(30_000).build()) {
      client.createTable("cold", TestRows.schema(), new CreateTableOptions()
          .addHashPartitions(List.of("key"), 4).setNumReplicas(3));
      MasterServer master = cluster.inProcessMaster(0);
      await("every replica hibernated").atMost(Duration.ofSeconds(45)).until(() -> {
        Collection<ReplicaReports.HotCold> hc = master.catalog().reports().hotColdByTserver()
            .values();
        return hc.stream().mapToInt(ReplicaReports.HotCold::hibernated).sum() == 12
            && hc.stream().allMatch(h -> h.awake() == 0);
      });
      String victim = cluster.tabletServer(3).uuid();
      List<String> held = locations(master, "cold").stream()
          .filter(l -> l.getReplicasList().stream()
              .anyMatch(r -> r.getTsInfo().getUuid().equals(victim)))
          .map(TabletLocationsPB::getTabletId).toList();
      assertThat(held).isNotEmpty();

      cluster.stopTabletServer(3);

      await("the stopped server's cold replicas replaced").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(300)).until(() -> locations(master, "cold").stream()
              .filter(l -> held.contains(l.getTabletId()))
              .allMatch(l -> l.getReplicasCount() == 3 && l.getReplicasList().stream()
                  .noneMatch(r -> r.getTsInfo().getUuid().equals(victim))));
      assertThat(master.metrics().value("rereplication_replacements_total"))
          .isEqualTo(held.size());
    }
  }

  private static List<TabletLocationsPB> locations(MasterServer master, String table) {
    return master.getTableLocations(GetTableLocationsRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableName(table)).build())
        .getTabletLocationsList();
  }

  private static List<ListTabletServersResponsePB.Entry> servers(
      MasterServiceGrpc.MasterServiceBlockingStub master) {
    return master.withDeadlineAfter(10, TimeUnit.SECONDS)
        .listTabletServers(ListTabletServersRequestPB.getDefaultInstance()).getServersList();
  }

  private static List<TabletLocationsPB> locations(
      MasterServiceGrpc.MasterServiceBlockingStub master, String table) {
    return master.withDeadlineAfter(10, TimeUnit.SECONDS).getTableLocations(
        GetTableLocationsRequestPB.newBuilder()
            .setTable(TableIdentifierPB.newBuilder().setTableName(table)).build())
        .getTabletLocationsList();
  }
}
