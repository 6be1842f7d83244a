package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
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

/**
 * The master deletes a reported replica only when its catalog positively says so
 * (docs/data-safety.md, "Deletes"): a tombstone of the tablet or its table, or a committed
 * configuration that excludes the replica, whose index the DeleteTablet carries. A tablet the
 * catalog does not know is left alone and counted; another cluster's tablet server is refused.
 */
@Timeout(60)
class PositiveDeleteTest {
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
  void unknownTabletIsLeftAloneAndCounted() {
    FakeTServer ts = tservers.get(0);
    String unknown = RaftIds.newId();
    String tombstoned = droppedTablet("dropped-beside-unknown");
    long before = m.master.metrics().value("catalog_unknown_tablet_replicas");
    ts.deletes.clear();
    // One report, both tablets: the tombstoned one's DeleteTablet shows the report was handled.
    ts.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(unknown, 1),
        FakeTServer.leader(tombstoned, 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> ts.deleted(tombstoned));
    assertThat(ts.deleted(unknown)).isFalse();
    assertThat(m.master.metrics().value("catalog_unknown_tablet_replicas"))
        .isEqualTo(before + 1);
  }

  @Test
  void tombstonedTabletIsDeletedEvenAfterARestart() {
    String tablet = droppedTablet("dropped");
    FakeTServer ts = tservers.get(1);
    ts.deletes.clear();
    m.restart();
    tservers.forEach(x -> x.register(m.stub()));
    ts.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.follower(tablet, "", 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> ts.deleted(tablet));
    assertThat(deleteOf(ts, tablet).getTabletDropped()).isTrue();
    // The tombstone is in no listing, and the name is free again.
    SysTabletEntryPB listed = m.master.catalog().catalog().read(s -> s.tablet(tablet));
    assertThat(listed).isNull();
    assertThat(m.stub().createTable(Tables.create("dropped", 1, 1)).hasError()).isFalse();
  }

  @Test
  void replicaExcludedByACommittedConfigIsDeletedWithItsIndex() {
    String id = m.stub().createTable(Tables.create("excluding", 1, 3)).getTableId();
    SysTabletEntryPB t = m.master.catalog().catalog().read(s -> s.tabletsOf(id)).get(0);
    String tablet = t.getTabletId();
    FakeTServer leader = byUuid.get(t.getReplicas(0).getUuid());
    FakeTServer outsider = tservers.stream().filter(x -> t.getReplicasList().stream()
        .noneMatch(r -> r.getUuid().equals(x.uuid))).findFirst().orElseThrow();

    // Before any committed configuration was reported, the catalog cannot prove the exclusion.
    leader.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(tablet, 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> m.master.catalog().catalog()
        .read(s -> s.tablet(tablet)).getState() == SysTabletStatePB.SYS_TABLET_RUNNING);
    ReportedTabletPB.Builder config = FakeTServer.leader(tablet, 2).toBuilder()
        .setCommittedConfigIndex(7);
    t.getReplicasList().forEach(p -> config.addConfigPeerUuids(p.getUuid()));
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      leader.heartbeat(m.stub(), FakeTServer.incremental(config.build()));
      return m.master.catalog().catalog().read(s -> s.tablet(tablet)).getConfigIndex() == 7;
    });

    outsider.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.follower(tablet, "", 1)
        .toBuilder().setCommittedConfigIndex(3).build()));
    await().atMost(Duration.ofSeconds(10)).until(() -> outsider.deleted(tablet));
    DeleteTabletRequestPB d = deleteOf(outsider, tablet);
    assertThat(d.hasCasConfigIndex()).isTrue();
    assertThat(d.getCasConfigIndex()).isEqualTo(7);
    assertThat(d.getTabletDropped()).isFalse();
    assertThat(d.getClusterId()).isEqualTo(m.master.catalog().catalog()
        .read(s -> s.clusterId()));
    assertThat(leader.deleted(tablet)).isFalse();
    t.getReplicasList().stream().map(RaftPeerPB::getUuid)
        .forEach(u -> assertThat(byUuid.get(u).deleted(tablet)).isFalse());
  }

  @Test
  void anotherClustersTabletServerIsRefusedAndItsReportIgnored() {
    FakeTServer ts = tservers.get(2);
    String tombstoned = droppedTablet("dropped-for-a-stranger");
    ts.deletes.clear();
    TSHeartbeatResponsePB resp = m.stub().tSHeartbeat(TSHeartbeatRequestPB.newBuilder()
        .setRegistration(ts.registration()).setClusterId("another-cluster")
        .setTabletReport(FakeTServer.incremental(FakeTServer.leader(tombstoned, 1))).build());
    String mine = m.master.catalog().catalog().read(s -> s.clusterId());
    assertThat(resp.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(resp.getError().getMessage()).contains("another-cluster").contains(mine);
    assertThat(resp.getClusterId()).isEqualTo(mine);
    // Its own cluster's heartbeat is handled: the tombstone's delete comes, the other did not.
    TSHeartbeatResponsePB ok = m.stub().tSHeartbeat(TSHeartbeatRequestPB.newBuilder()
        .setRegistration(ts.registration()).setClusterId(mine)
        .setTabletReport(FakeTServer.incremental(FakeTServer.leader(tombstoned, 1))).build());
    assertThat(ok.hasError()).isFalse();
    await().atMost(Duration.ofSeconds(10)).until(() -> ts.deleted(tombstoned));
    assertThat(ts.deletes).hasSize(1);
  }

  /** Creates a one-tablet table and drops it; returns the tablet's id. */
  private static String droppedTablet(String table) {
    String id = m.stub().createTable(Tables.create(table, 1, 1)).getTableId();
    SysTabletEntryPB t = m.master.catalog().catalog().read(s -> s.tabletsOf(id)).get(0);
    assertThat(m.stub().deleteTable(DeleteTableRequestPB.newBuilder()
        .setTable(Tables.byId(id)).build()).hasError()).isFalse();
    // DeleteTable's own deletes land first, so a test sees only those its reports cause.
    FakeTServer holder = byUuid.get(t.getReplicas(0).getUuid());
    await().atMost(Duration.ofSeconds(10)).until(() -> holder.deleted(t.getTabletId()));
    return t.getTabletId();
  }

  private static DeleteTabletRequestPB deleteOf(FakeTServer ts, String tablet) {
    return ts.deletes.stream().filter(d -> d.getTabletId().equals(tablet)).findFirst()
        .orElseThrow();
  }
}
