package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.IsCreateTableDoneRequestPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** DeleteTable and the reconciliation of reported replicas the catalog does not know. */
@Timeout(60)
class DeleteTableTest {
  @TempDir static Path dir;
  static MasterFixture m;
  static List<FakeTServer> tservers = new ArrayList<>();
  static Map<String, FakeTServer> byUuid = new HashMap<>();

  @BeforeAll
  static void startCluster() throws Exception {
    m = MasterFixture.start(dir);
    for (int i = 0; i < 4; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      tservers.add(ts);
      byUuid.put(ts.uuid, ts);
      ts.register(m.stub());
    }
  }

  @AfterAll
  static void stopCluster() {
    tservers.forEach(FakeTServer::close);
    m.close();
  }

  @Test
  @Timeout(30)
  void deleteTableDeletesEveryReplicaAndForgetsTheTable() {
    String id = m.stub().createTable(Tables.create("doomed", 3, 3)).getTableId();
    List<SysTabletEntryPB> tablets = m.master.catalog().catalog().read(s -> s.tabletsOf(id));
    var resp = m.stub().deleteTable(DeleteTableRequestPB.newBuilder()
        .setTable(Tables.byName("doomed")).build());
    assertThat(resp.hasError()).as(resp.getError().getMessage()).isFalse();

    for (SysTabletEntryPB t : tablets) {
      t.getReplicasList().forEach(r -> await().atMost(Duration.ofSeconds(10))
          .until(() -> byUuid.get(r.getUuid()).deleted(t.getTabletId())));
    }
    long left = m.master.catalog().catalog().read(s -> s.tablets().stream()
        .filter(t -> t.getTableId().equals(id)).count());
    assertThat(left).isZero();

    var schema = m.stub().getTableSchema(GetTableSchemaRequestPB.newBuilder()
        .setTable(Tables.byName("doomed")).build());
    assertThat(schema.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(schema.getError().getMessage()).isEqualTo("table 'doomed' not found");
    var again = m.stub().deleteTable(DeleteTableRequestPB.newBuilder()
        .setTable(Tables.byId(id)).build());
    assertThat(again.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(again.getError().getMessage()).contains(id);
    var locs = m.stub().getTableLocations(GetTableLocationsRequestPB.newBuilder()
        .setTable(Tables.byId(id)).build());
    assertThat(locs.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    var done = m.stub().isCreateTableDone(IsCreateTableDoneRequestPB.newBuilder()
        .setTable(Tables.byName("doomed")).build());
    assertThat(done.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);

    // The name is free again.
    assertThat(m.stub().createTable(Tables.create("doomed", 1, 1)).hasError()).isFalse();
  }

  @Test
  @Timeout(30)
  void reportedReplicasTheCatalogDoesNotAssignAreDeleted() {
    FakeTServer ts = tservers.get(0);
    String unknown = RaftIds.newId();
    ts.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(unknown, 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> ts.deleted(unknown));
    assertThat(ts.deletes.stream().filter(d -> d.getTabletId().equals(unknown)).findFirst()
        .orElseThrow().getReason()).contains("not in the catalog");

    // A real tablet reported by a tserver that is not one of its replicas.
    String id = m.stub().createTable(Tables.create("elsewhere", 1, 3)).getTableId();
    SysTabletEntryPB t = m.master.catalog().catalog().read(s -> s.tabletsOf(id)).get(0);
    FakeTServer outsider = tservers.stream().filter(x -> t.getReplicasList().stream()
        .noneMatch(r -> r.getUuid().equals(x.uuid))).findFirst().orElseThrow();
    outsider.heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.follower(t.getTabletId(), "", 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> outsider.deleted(t.getTabletId()));
    // ... while its real replicas keep it.
    FakeTServer member = byUuid.get(t.getReplicas(0).getUuid());
    member.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(t.getTabletId(), 1)));
    assertThat(member.deleted(t.getTabletId())).isFalse();
  }
}
