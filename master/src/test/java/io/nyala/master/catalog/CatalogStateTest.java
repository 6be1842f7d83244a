package io.nyala.master.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysCatalogSnapshotPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.metadata.TableStatePB;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CatalogStateTest {
  private static SysCatalogOpPB table(String id, String name) {
    return SysCatalogOpPB.newBuilder().setPutTable(SysTableEntryPB.newBuilder()
        .setTableId(id).setName(name)).build();
  }

  private static SysCatalogOpPB tablet(String id, String tableId, int start) {
    PartitionPB.Builder p = PartitionPB.newBuilder()
        .setPartitionKeyStart(ByteString.copyFrom(new byte[] {(byte) start}));
    return SysCatalogOpPB.newBuilder().setPutTablet(SysTabletEntryPB.newBuilder()
        .setTabletId(id).setTableId(tableId).setPartition(p)).build();
  }

  @Test
  void tabletsAreOrderedByUnsignedPartitionKey() {
    CatalogState s = new CatalogState();
    s.apply(table("t", "a"));
    s.apply(tablet("x", "t", 0x80));
    s.apply(tablet("y", "t", 0x01));
    s.apply(tablet("z", "t", 0xff));
    assertThat(s.tabletsOf("t")).extracting(SysTabletEntryPB::getTabletId)
        .containsExactly("y", "x", "z");
  }

  @Test
  void deletingATableDropsItsTabletsAndLateTabletUpdatesAreIgnored() {
    CatalogState s = new CatalogState();
    s.apply(table("t", "a"));
    s.apply(tablet("x", "t", 1));
    s.apply(SysCatalogOpPB.newBuilder().setDeleteTableId("t").build());
    assertThat(s.tableByName("a")).isNull();
    assertThat(s.tablet("x")).isNull();
    s.apply(tablet("x", "t", 1)); // e.g. a RUNNING update written before the delete applied
    assertThat(s.tablets()).isEmpty();
  }

  @Test
  void theFirstReplicatedClusterIdWins() {
    CatalogState s = new CatalogState();
    s.apply(SysCatalogOpPB.newBuilder().setSetClusterId("first").build());
    s.apply(SysCatalogOpPB.newBuilder().setSetClusterId("retried-barrier").build());
    assertThat(s.clusterId()).isEqualTo("first");
  }

  @Test
  void renamingKeepsOneNameAndSnapshotsRoundTrip() {
    CatalogState s = new CatalogState();
    s.apply(SysCatalogOpPB.newBuilder().setSetClusterId("c1").build());
    s.apply(table("t", "old"));
    s.apply(table("t", "new"));
    s.apply(tablet("x", "t", 1));
    s.apply(tablet("y", "t", 2));
    s.apply(SysCatalogOpPB.newBuilder().setDeleteTabletId("y").build());
    assertThat(s.tableByName("old")).isNull();
    assertThat(s.tableByName("new").getTableId()).isEqualTo("t");

    SysCatalogSnapshotPB snap = s.toSnapshot(3, 42);
    assertThat(snap.getLastAppliedIndex()).isEqualTo(42);
    CatalogState back = CatalogState.fromSnapshot(snap);
    assertThat(back.clusterId()).isEqualTo("c1");
    assertThat(back.tableByName("new")).isEqualTo(s.tableByName("new"));
    assertThat(back.tabletsOf("t")).containsExactlyElementsOf(s.tabletsOf("t"));
  }

  @Test
  void droppedTablesAndTabletsStayAsTombstonesOutOfEveryListingAndInSnapshots() {
    CatalogState s = new CatalogState();
    s.apply(table("t", "a"));
    s.apply(tablet("x", "t", 1));
    s.apply(table("u", "b"));
    s.apply(tablet("y", "u", 1));
    s.apply(tablet("z", "u", 2));
    s.apply(SysCatalogOpPB.newBuilder().setDeleteTableId("t").build());
    s.apply(SysCatalogOpPB.newBuilder().setDeleteTabletId("z").build());
    s.apply(table("t2", "a")); // the name is free again

    CatalogState back = CatalogState.fromSnapshot(s.toSnapshot(1, 9));
    for (CatalogState c : List.of(s, back)) {
      assertThat(c.tables()).extracting(SysTableEntryPB::getTableId)
          .containsExactlyInAnyOrder("u", "t2");
      assertThat(c.tablets()).extracting(SysTabletEntryPB::getTabletId).containsExactly("y");
      assertThat(c.tablet("x")).isNull();
      assertThat(c.tableByName("a").getTableId()).isEqualTo("t2");
      assertThat(c.removedTable("t").getState()).isEqualTo(TableStatePB.TABLE_REMOVED);
      assertThat(c.deletedTablet("x").getState()).isEqualTo(SysTabletStatePB.SYS_TABLET_DELETED);
      assertThat(c.deletedTablet("z").getTableId()).isEqualTo("u");
      assertThat(c.deletedTablet("y")).isNull();
    }
  }
}
