package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

/** DeleteTable (what reports of unlisted replicas cause: {@link PositiveDeleteTest}). */
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
}
