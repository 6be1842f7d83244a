package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import io.nyala.common.proto.master.IsCreateTableDoneRequestPB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** CreateTable against one real master and four fake tservers. */
@Timeout(60)
class CreateTableTest {
  @TempDir static Path dir;
  static MasterFixture m;
  static List<FakeTServer> tservers = new ArrayList<>();

  @BeforeAll
  static void startCluster() throws Exception {
    m = MasterFixture.start(dir, "--tablet_creation_retry_ms=300");
    for (int i = 0; i < 4; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      tservers.add(ts);
      ts.register(m.stub());
    }
  }

  @AfterAll
  static void stopCluster() {
    tservers.forEach(FakeTServer::close);
    m.close();
  }

  private static List<SysTabletEntryPB> tabletsOf(String tableId) {
    return m.master.catalog().catalog().read(s -> s.tabletsOf(tableId));
  }

  @Test
  @Timeout(30)
  void placementSpreadsReplicasEvenlyAndNeverTwiceOnOneTServer() {
    CreateTableResponsePB resp = m.stub().createTable(Tables.create("spread", 8, 3));
    assertThat(resp.hasError()).as(resp.getError().getMessage()).isFalse();
    assertThat(resp.getTableId()).matches("[0-9a-f]{32}");

    List<SysTabletEntryPB> tablets = tabletsOf(resp.getTableId());
    assertThat(tablets).hasSize(8);
    Map<String, Integer> perTs = new HashMap<>();
    for (SysTabletEntryPB t : tablets) {
      Set<String> uuids = new HashSet<>();
      t.getReplicasList().forEach(r -> uuids.add(r.getUuid()));
      assertThat(uuids).as("replicas of %s", t.getTabletId()).hasSize(3);
      uuids.forEach(u -> perTs.merge(u, 1, Integer::sum));
      assertThat(t.getState()).isEqualTo(SysTabletStatePB.SYS_TABLET_CREATING);
    }
    // 24 replicas over 4 tservers, counted with any earlier tables' replicas.
    Map<String, Integer> total = m.master.catalog().replicaCounts();
    assertThat(total).hasSize(4);
    int max = total.values().stream().max(Integer::compare).orElseThrow();
    int min = total.values().stream().min(Integer::compare).orElseThrow();
    assertThat(max - min).as("replica counts %s", total).isLessThanOrEqualTo(1);
    assertThat(perTs.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(24);

    var servers = m.stub().listTabletServers(ListTabletServersRequestPB.getDefaultInstance());
    assertThat(servers.getServersList()).hasSize(4)
        .allSatisfy(e -> assertThat(e.getLive()).isTrue());
    assertThat(servers.getServersList().stream().mapToInt(e -> e.getNumReplicas()).sum())
        .isEqualTo(total.values().stream().mapToInt(Integer::intValue).sum());
  }

  @Test
  @Timeout(30)
  void createTabletGoesToEveryReplicaAndIsResentToSilentOnes() {
    String tableId = m.stub().createTable(Tables.create("lifecycle", 2, 3)).getTableId();
    List<SysTabletEntryPB> tablets = tabletsOf(tableId);
    Map<String, FakeTServer> byUuid = new HashMap<>();
    tservers.forEach(t -> byUuid.put(t.uuid, t));

    for (SysTabletEntryPB t : tablets) {
      for (RaftPeerPB r : t.getReplicasList()) {
        FakeTServer ts = byUuid.get(r.getUuid());
        await().atMost(Duration.ofSeconds(10)).until(() -> ts.createsOf(t.getTabletId()) >= 1);
        CreateTabletRequestPB req = ts.creates.stream()
            .filter(c -> c.getTabletId().equals(t.getTabletId())).findFirst().orElseThrow();
        assertThat(req.getTableId()).isEqualTo(tableId);
        assertThat(req.getTableName()).isEqualTo("lifecycle");
        assertThat(req.getPeersList()).containsExactlyElementsOf(t.getReplicasList());
        assertThat(req.getPartition()).isEqualTo(t.getPartition());
        assertThat(req.getSchema().getColumns(0).getId()).isEqualTo(1);
        assertThat(req.getSchema().getColumns(1).getId()).isEqualTo(2);
        assertThat(req.getPartitionSchema().getHashSchemas(0).getNumBuckets()).isEqualTo(2);
      }
    }
    assertThat(isDone("lifecycle")).isFalse();

    // Tablet 0: its first replica leads, the second follows, the third never reports.
    SysTabletEntryPB t0 = tablets.get(0);
    String leader = t0.getReplicas(0).getUuid();
    byUuid.get(leader).heartbeat(m.stub(),
        FakeTServer.incremental(FakeTServer.leader(t0.getTabletId(), 3)));
    byUuid.get(t0.getReplicas(1).getUuid()).heartbeat(m.stub(),
        FakeTServer.incremental(FakeTServer.follower(t0.getTabletId(), leader, 3)));
    assertThat(isDone("lifecycle")).as("tablet 1 has no leader yet").isFalse();

    FakeTServer silent = byUuid.get(tablets.get(1).getReplicas(2).getUuid());
    await().atMost(Duration.ofSeconds(10))
        .until(() -> silent.createsOf(tablets.get(1).getTabletId()) >= 2);

    SysTabletEntryPB t1 = tablets.get(1);
    byUuid.get(t1.getReplicas(0).getUuid()).heartbeat(m.stub(),
        FakeTServer.incremental(FakeTServer.leader(t1.getTabletId(), 1)));
    assertThat(isDone("lifecycle")).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> tabletsOf(tableId).stream()
        .allMatch(t -> t.getState() == SysTabletStatePB.SYS_TABLET_RUNNING));
    assertThat(tabletsOf(tableId).get(0).getLeaderUuid()).isEqualTo(leader);
    assertThat(tabletsOf(tableId).get(0).getTerm()).isEqualTo(3);
    // Tablet 0 runs with its third replica never created: it is still sent CreateTablet.
    FakeTServer third = byUuid.get(t0.getReplicas(2).getUuid());
    long before = third.createsOf(t0.getTabletId());
    await().atMost(Duration.ofSeconds(10))
        .until(() -> third.createsOf(t0.getTabletId()) > before);

    // Re-replication swaps that silent replica for the fourth server (a joiner, which it
    // creates itself with joining=true, for a tablet copy): creation must never send the
    // joiner a plain CreateTablet, which would make it a founding member with an empty log.
    FakeTServer outsider = tservers.stream().filter(ts -> t0.getReplicasList().stream()
        .noneMatch(r -> r.getUuid().equals(ts.uuid))).findFirst().orElseThrow();
    SysTabletEntryPB current = m.master.catalog().catalog().read(s -> s.tablet(
        t0.getTabletId()));
    SysTabletEntryPB.Builder swapped = current.toBuilder().clearReplicas();
    current.getReplicasList().stream().filter(r -> !r.getUuid().equals(third.uuid))
        .forEach(swapped::addReplicas);
    swapped.addReplicas(RaftPeerPB.newBuilder().setUuid(outsider.uuid)
        .setRpcAddress(outsider.registration().getRpcAddress())
        .setRaftAddress(outsider.registration().getRaftAddress()));
    m.master.catalog().catalog().write(SysCatalogBatchPB.newBuilder()
        .addOps(SysCatalogOpPB.newBuilder().setPutTablet(swapped)).build()).join();
    long thirdBefore = third.createsOf(t0.getTabletId());
    // For three retry intervals (300 ms) of sweeps, the joiner gets nothing.
    await("no plain CreateTablet to the joiner").during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(2)).until(() -> outsider.createsOf(t0.getTabletId()) == 0);
    assertThat(third.createsOf(t0.getTabletId())).as("CreateTablet to the replaced replica")
        .isLessThanOrEqualTo(thirdBefore + 1);

    GetTableSchemaResponsePB schema = m.stub().getTableSchema(GetTableSchemaRequestPB
        .newBuilder().setTable(Tables.byId(tableId)).build());
    assertThat(schema.getTableName()).isEqualTo("lifecycle");
    assertThat(schema.getCreateTableDone()).isTrue();
    assertThat(schema.getNumReplicas()).isEqualTo(3);
    assertThat(schema.getSchema().getVersion()).isEqualTo(1);
  }

  @Test
  @Timeout(30)
  void listTablesFiltersBySubstringAndDefaultsReplication() {
    m.stub().createTable(Tables.create("metrics_a", 1, 0));
    m.stub().createTable(Tables.create("metrics_b", 3, 1));
    ListTablesResponsePB all = m.stub().listTables(ListTablesRequestPB.newBuilder()
        .setNameFilter("metrics_").build());
    assertThat(all.getTablesList()).extracting(ListTablesResponsePB.TableInfo::getName)
        .containsExactly("metrics_a", "metrics_b");
    assertThat(all.getTables(0).getNumReplicas()).isEqualTo(3);
    assertThat(all.getTables(0).getNumTablets()).isEqualTo(1);
    assertThat(all.getTables(1).getNumReplicas()).isEqualTo(1);
    assertThat(all.getTables(1).getNumTablets()).isEqualTo(3);
  }

  private static boolean isDone(String name) {
    var r = m.stub().isCreateTableDone(IsCreateTableDoneRequestPB.newBuilder()
        .setTable(Tables.byName(name)).build());
    assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
    return r.getDone();
  }
}
