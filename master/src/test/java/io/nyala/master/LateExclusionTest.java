package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.ReportedTabletPB;
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
 * A tablet server reports a replica once (its reports are incremental); the catalog may prove
 * the replica's exclusion only later. The master then deletes it without another report
 * (docs/data-safety.md, "Deletes"), and still never deletes a member.
 */
@Timeout(60)
class LateExclusionTest {
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
  void anUnprovenReplicaIsDeletedOnceACommittedConfigExcludesIt() {
    SysTabletEntryPB t = runningTablet("unproven-then-excluded");
    String tablet = t.getTabletId();
    FakeTServer leader = byUuid.get(t.getReplicas(0).getUuid());
    FakeTServer outsider = outsiderOf(t);

    // No committed configuration known yet: the exclusion is unproven, nothing is deleted.
    outsider.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.follower(tablet, "", 1)));
    reportConfig(leader, tablet, peersOf(t), 7);
    await().atMost(Duration.ofSeconds(20)).until(() -> outsider.deleted(tablet));
    assertThat(deleteOf(outsider, tablet).getCasConfigIndex()).isEqualTo(7);
    peersOf(t).forEach(u -> assertThat(byUuid.get(u).deleted(tablet)).isFalse());
  }

  @Test
  void aMemberIsDeletedOnceALaterCommittedConfigDropsIt() {
    SysTabletEntryPB t = runningTablet("member-then-excluded");
    String tablet = t.getTabletId();
    FakeTServer leader = byUuid.get(t.getReplicas(0).getUuid());
    FakeTServer evicted = byUuid.get(t.getReplicas(2).getUuid());
    FakeTServer joiner = outsiderOf(t);
    List<String> before = peersOf(t);
    reportConfig(leader, tablet, before, 4);

    // The member reports once while it is listed, then a replacement commits without it.
    evicted.heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.follower(tablet, leader.uuid, 2).toBuilder().setCommittedConfigIndex(4)
            .build()));
    List<String> after = List.of(before.get(0), before.get(1), joiner.uuid);
    reportConfig(leader, tablet, after, 9);
    await().atMost(Duration.ofSeconds(20)).until(() -> evicted.deleted(tablet));
    DeleteTabletRequestPB d = deleteOf(evicted, tablet);
    assertThat(d.getCasConfigIndex()).isEqualTo(9);
    assertThat(d.getTabletDropped()).isFalse();
    after.forEach(u -> assertThat(byUuid.get(u).deleted(tablet)).isFalse());
  }

  @Test
  void aDeleteThatDidNotArriveIsRetriedAtTheNextHeartbeat() {
    SysTabletEntryPB t = runningTablet("delete-retried");
    String tablet = t.getTabletId();
    FakeTServer leader = byUuid.get(t.getReplicas(0).getUuid());
    FakeTServer outsider = outsiderOf(t);
    reportConfig(leader, tablet, peersOf(t), 6);

    outsider.deletesToFail.set(1);
    outsider.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.follower(tablet, "", 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> outsider.failedDeletes.stream()
        .anyMatch(d -> d.getTabletId().equals(tablet)));
    // Nothing changed on the server, so its next report does not name the replica again.
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      outsider.heartbeat(m.stub(), FakeTServer.incremental());
      return outsider.deleted(tablet);
    });
    assertThat(deleteOf(outsider, tablet).getCasConfigIndex()).isEqualTo(6);
  }

  /** Creates a one-tablet table of 3 replicas and makes it RUNNING; returns its tablet. */
  private static SysTabletEntryPB runningTablet(String table) {
    String id = m.stub().createTable(Tables.create(table, 1, 3)).getTableId();
    SysTabletEntryPB t = m.master.catalog().catalog().read(s -> s.tabletsOf(id)).get(0);
    FakeTServer leader = byUuid.get(t.getReplicas(0).getUuid());
    leader.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(t.getTabletId(), 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablet(t.getTabletId()).getState()
        == SysTabletStatePB.SYS_TABLET_RUNNING);
    return tablet(t.getTabletId());
  }

  /** The leader reports {@code peers} committed at {@code index} until the catalog takes it. */
  private static void reportConfig(FakeTServer leader, String tablet, List<String> peers,
      long index) {
    ReportedTabletPB r = FakeTServer.leader(tablet, 2).toBuilder()
        .setCommittedConfigIndex(index).addAllConfigPeerUuids(peers).build();
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      leader.heartbeat(m.stub(), FakeTServer.incremental(r));
      return tablet(tablet).getConfigIndex() == index;
    });
  }

  private static SysTabletEntryPB tablet(String id) {
    return m.master.catalog().catalog().read(s -> s.tablet(id));
  }

  private static List<String> peersOf(SysTabletEntryPB t) {
    return t.getReplicasList().stream().map(RaftPeerPB::getUuid).toList();
  }

  private static FakeTServer outsiderOf(SysTabletEntryPB t) {
    return tservers.stream().filter(x -> !peersOf(t).contains(x.uuid)).findFirst()
        .orElseThrow();
  }

  private static DeleteTabletRequestPB deleteOf(FakeTServer ts, String tablet) {
    return ts.deletes.stream().filter(d -> d.getTabletId().equals(tablet)).findFirst()
        .orElseThrow();
  }
}
