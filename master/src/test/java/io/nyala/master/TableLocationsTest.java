package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** GetTableLocations over a 6-tablet table on three fake tservers. */
@Timeout(60)
class TableLocationsTest {
  @TempDir static Path dir;
  static MasterFixture m;
  static List<FakeTServer> tservers = new ArrayList<>();
  static List<SysTabletEntryPB> tablets;
  static String tableId;
  /** tablet id → uuid of the tserver reported as its leader. */
  static Map<String, String> leaders = new HashMap<>();

  @BeforeAll
  static void startCluster() throws Exception {
    m = MasterFixture.start(dir);
    Map<String, FakeTServer> byUuid = new HashMap<>();
    for (int i = 0; i < 3; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      tservers.add(ts);
      byUuid.put(ts.uuid, ts);
      ts.register(m.stub());
    }
    tableId = m.stub().createTable(Tables.create("loc", 6, 3)).getTableId();
    tablets = m.master.catalog().catalog().read(s -> s.tabletsOf(tableId));
    for (int i = 0; i < tablets.size(); i++) {
      SysTabletEntryPB t = tablets.get(i);
      String leader = t.getReplicas(i % 3).getUuid();
      leaders.put(t.getTabletId(), leader);
      // An old leader in term 1 loses to the new one in term 2, whatever the report order.
      String old = t.getReplicas((i + 1) % 3).getUuid();
      byUuid.get(leader).heartbeat(m.stub(),
          FakeTServer.incremental(FakeTServer.leader(t.getTabletId(), 2)));
      byUuid.get(old).heartbeat(m.stub(),
          FakeTServer.incremental(FakeTServer.leader(t.getTabletId(), 1)));
    }
  }

  @AfterAll
  static void stopCluster() {
    tservers.forEach(FakeTServer::close);
    m.close();
  }

  private static GetTableLocationsResponsePB locate(GetTableLocationsRequestPB.Builder b) {
    return m.stub().getTableLocations(b.setTable(Tables.byName("loc")).build());
  }

  private static List<String> ids(GetTableLocationsResponsePB r) {
    assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
    return r.getTabletLocationsList().stream().map(TabletLocationsPB::getTabletId).toList();
  }

  private static List<String> tabletIds(int from, int to) {
    return tablets.subList(from, to).stream().map(SysTabletEntryPB::getTabletId).toList();
  }

  @Test
  void allTabletsInPartitionKeyOrderWithLeaders() {
    GetTableLocationsResponsePB r = locate(GetTableLocationsRequestPB.newBuilder());
    assertThat(ids(r)).containsExactlyElementsOf(tabletIds(0, 6));
    assertThat(r.getTtlMillis()).isPositive();
    for (TabletLocationsPB loc : r.getTabletLocationsList()) {
      assertThat(loc.getReplicasList()).hasSize(3);
      for (TabletLocationsPB.ReplicaPB rep : loc.getReplicasList()) {
        assertThat(rep.getTsInfoIdx()).isEqualTo(-1);
        assertThat(rep.getTsInfo().getName()).startsWith("ts-");
        boolean isLeader = rep.getTsInfo().getUuid().equals(leaders.get(loc.getTabletId()));
        assertThat(rep.getRole()).isEqualTo(isLeader ? RaftRolePB.LEADER : RaftRolePB.FOLLOWER);
      }
    }
  }

  @Test
  void rangeStartsAtTheTabletContainingStartAndStopsBeforeEnd() {
    ByteString start2 = tablets.get(2).getPartition().getPartitionKeyStart();
    // A key inside tablet 2 (its start plus a suffix) still begins at tablet 2.
    ByteString inside2 = start2.concat(ByteString.copyFromUtf8("zz"));
    ByteString start5 = tablets.get(5).getPartition().getPartitionKeyStart();
    assertThat(ids(locate(GetTableLocationsRequestPB.newBuilder()
        .setPartitionKeyStart(inside2)))).containsExactlyElementsOf(tabletIds(2, 6));
    assertThat(ids(locate(GetTableLocationsRequestPB.newBuilder()
        .setPartitionKeyStart(inside2).setPartitionKeyEnd(start5))))
        .containsExactlyElementsOf(tabletIds(2, 5));
    assertThat(ids(locate(GetTableLocationsRequestPB.newBuilder()
        .setPartitionKeyEnd(start2)))).containsExactlyElementsOf(tabletIds(0, 2));
    assertThat(ids(locate(GetTableLocationsRequestPB.newBuilder()
        .setPartitionKeyStart(inside2).setMaxReturnedLocations(2))))
        .containsExactlyElementsOf(tabletIds(2, 4));
  }

  @Test
  void internedTsInfosListEachTServerOnce() {
    GetTableLocationsResponsePB r = locate(GetTableLocationsRequestPB.newBuilder()
        .setInternTsInfosInResponse(true));
    assertThat(ids(r)).hasSize(6);
    assertThat(r.getTsInfosList()).hasSize(3);
    assertThat(r.getTsInfosList().stream().map(i -> i.getUuid()).distinct()).hasSize(3);
    for (TabletLocationsPB loc : r.getTabletLocationsList()) {
      for (TabletLocationsPB.ReplicaPB rep : loc.getReplicasList()) {
        assertThat(rep.hasTsInfo()).isFalse();
        String uuid = r.getTsInfos(rep.getTsInfoIdx()).getUuid();
        assertThat(rep.getRole() == RaftRolePB.LEADER)
            .isEqualTo(uuid.equals(leaders.get(loc.getTabletId())));
      }
    }
  }

  @Test
  void badRequestsNameTheProblem() {
    ByteString a = ByteString.copyFromUtf8("b");
    ByteString b = ByteString.copyFromUtf8("a");
    GetTableLocationsResponsePB r = locate(GetTableLocationsRequestPB.newBuilder()
        .setPartitionKeyStart(a).setPartitionKeyEnd(b));
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(r.getError().getMessage()).contains("partition_key_end");

    r = m.stub().getTableLocations(GetTableLocationsRequestPB.getDefaultInstance());
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);

    r = m.stub().getTableLocations(GetTableLocationsRequestPB.newBuilder()
        .setTable(Tables.byName("nope")).build());
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(r.getError().getMessage()).isEqualTo("table 'nope' not found");
  }
}
