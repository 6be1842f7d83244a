package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A master restarted on the same directories keeps every table and tablet. */
@Timeout(60)
class MasterRestartTest {
  @TempDir Path dir;

  @Test
  @Timeout(45)
  void catalogSurvivesRestartFromTheLogAlone() throws Exception {
    restartKeepsEverything(false);
  }

  @Test
  @Timeout(45)
  void catalogSurvivesRestartFromASnapshotAndTheLogAfterIt() throws Exception {
    restartKeepsEverything(true);
  }

  private void restartKeepsEverything(boolean snapshot) throws Exception {
    String[] flags = snapshot
        ? new String[] {"--catalog_snapshot_threshold_entries=4"}
        : new String[0];
    List<FakeTServer> tservers = new ArrayList<>();
    try (MasterFixture m = MasterFixture.start(dir, flags)) {
      for (int i = 0; i < 3; i++) {
        tservers.add(new FakeTServer("ts-" + i));
        tservers.get(i).register(m.stub());
      }
      String clusterId = clusterId(m);
      for (int i = 0; i < 6; i++) {
        assertThat(m.stub().createTable(Tables.create("t" + i, 2, 3)).hasError()).isFalse();
      }
      m.stub().deleteTable(DeleteTableRequestPB.newBuilder()
          .setTable(Tables.byName("t3")).build());
      // One tablet goes RUNNING, which is persisted too.
      SysTabletEntryPB first = tabletsOf(m, "t0").get(0);
      tservers.stream().filter(t -> t.uuid.equals(first.getReplicas(0).getUuid())).findFirst()
          .orElseThrow().heartbeat(m.stub(), FakeTServer.incremental(
              FakeTServer.leader(first.getTabletId(), 4)));
      await().atMost(Duration.ofSeconds(10)).until(() -> tabletsOf(m, "t0").get(0).getState()
          == SysTabletStatePB.SYS_TABLET_RUNNING);
      if (snapshot) {
        await().atMost(Duration.ofSeconds(10)).until(() -> snapshotFiles().size() > 0);
      } else {
        assertThat(snapshotFiles()).isEmpty();
      }
      Set<SysTableEntryPB> tables = m.master.catalog().catalog().read(
          s -> new HashSet<>(s.tables()));
      Set<SysTabletEntryPB> tablets = m.master.catalog().catalog().read(
          s -> new HashSet<>(s.tablets()));
      assertThat(tables).hasSize(5);
      assertThat(tablets).hasSize(10);

      m.restart();

      Set<SysTableEntryPB> tablesAfter = m.master.catalog().catalog().read(
          s -> new HashSet<>(s.tables()));
      Set<SysTabletEntryPB> tabletsAfter = m.master.catalog().catalog().read(
          s -> new HashSet<>(s.tablets()));
      assertThat(tablesAfter).isEqualTo(tables);
      assertThat(tabletsAfter).isEqualTo(tablets);
      assertThat(clusterId(m)).isEqualTo(clusterId);
      ListTablesResponsePB list = m.stub().listTables(ListTablesRequestPB.getDefaultInstance());
      assertThat(list.getTablesList()).extracting(ListTablesResponsePB.TableInfo::getName)
          .containsExactly("t0", "t1", "t2", "t4", "t5");
      assertThat(m.stub().getTableSchema(GetTableSchemaRequestPB.newBuilder()
          .setTable(Tables.byName("t3")).build()).getError().getMessage())
          .isEqualTo("table 't3' not found");
      // The restarted leader serves DDL again.
      tservers.forEach(t -> t.register(m.stub()));
      assertThat(m.stub().createTable(Tables.create("after", 1, 3)).hasError()).isFalse();
    } finally {
      tservers.forEach(FakeTServer::close);
    }
  }

  private static String clusterId(MasterFixture m) {
    return m.stub().getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance())
        .getClusterId();
  }

  private static List<SysTabletEntryPB> tabletsOf(MasterFixture m, String name) {
    return m.master.catalog().catalog().read(s -> s.tabletsOf(s.tableByName(name)
        .getTableId()));
  }

  private List<Path> snapshotFiles() throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))
          .toList();
    }
  }
}
