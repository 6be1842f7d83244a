package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.TabletReportPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Replicas on a dead tablet server are replaced, once per tablet, and the catalog follows. */
@Timeout(60)
class ReReplicationTest {
  @TempDir Path dir;
  MasterFixture m;
  final Map<String, FakeTServer> byUuid = new HashMap<>();

  @AfterEach
  void stop() {
    byUuid.values().forEach(FakeTServer::close);
    if (m != null) {
      m.close();
    }
  }

  @Test
  void deadTServersReplicasMoveToTheLiveOneWithout() throws Exception {
    startWithFourTServers("--tserver_unresponsive_timeout_ms=5000");
    String tableId = m.stub().createTable(Tables.create("rr", 4, 3)).getTableId();
    List<SysTabletEntryPB> tablets = tablets(tableId);
    String victim = tablets.get(0).getReplicas(1).getUuid();
    for (SysTabletEntryPB t : tablets) {
      byUuid.get(leaderOf(t, victim)).heartbeat(m.stub(),
          FakeTServer.incremental(FakeTServer.leader(t.getTabletId(), 1)));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> tablets(tableId).stream()
        .allMatch(t -> t.getState() == SysTabletStatePB.SYS_TABLET_RUNNING));
    List<SysTabletEntryPB> affected = tablets(tableId).stream()
        .filter(t -> holds(t, victim)).toList();

    letOnlyDie(victim);
    await().atMost(Duration.ofSeconds(20)).until(() -> tablets(tableId).stream()
        .noneMatch(t -> holds(t, victim)));

    assertThat(m.master.metrics().value("rereplication_replacements_total"))
        .isEqualTo(affected.size());
    for (SysTabletEntryPB before : affected) {
      SysTabletEntryPB after = m.master.catalog().catalog().read(s -> s.tablet(
          before.getTabletId()));
      assertThat(after.getReplicasList()).hasSize(3);
      String joiner = after.getReplicasList().stream().map(RaftPeerPB::getUuid)
          .filter(u -> !holds(before, u)).findFirst().orElseThrow();
      List<CreateTabletRequestPB> creates = byUuid.get(joiner).creates.stream()
          .filter(c -> c.getTabletId().equals(before.getTabletId())).toList();
      assertThat(creates).singleElement().satisfies(c -> assertThat(c.getJoining()).isTrue());
      List<ChangeConfigRequestPB> changes = byUuid.get(leaderOf(before, victim)).changes.stream()
          .filter(c -> c.getTabletId().equals(before.getTabletId())).toList();
      assertThat(changes).singleElement().satisfies(c -> {
        assertThat(c.getType()).isEqualTo(ChangeConfigTypePB.REPLACE_PEER);
        assertThat(c.getRemoveUuid()).isEqualTo(victim);
        assertThat(c.getNewPeer().getUuid()).isEqualTo(joiner);
        assertThat(c.getExpectedPeerUuidsList()).containsExactlyInAnyOrderElementsOf(
            before.getReplicasList().stream().map(RaftPeerPB::getUuid).toList());
      });
    }

    // Each leader reports the committed configuration (and its index) that excludes the victim:
    // only that proves the victim's replica may go (docs/data-safety.md).
    for (SysTabletEntryPB before : affected) {
      SysTabletEntryPB after = m.master.catalog().catalog().read(s -> s.tablet(
          before.getTabletId()));
      var config = FakeTServer.leader(before.getTabletId(), 2).toBuilder()
          .setCommittedConfigIndex(9)
          .addAllConfigPeerUuids(after.getReplicasList().stream().map(RaftPeerPB::getUuid)
              .toList()).build();
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        byUuid.get(leaderOf(before, victim)).heartbeat(m.stub(),
            FakeTServer.incremental(config));
        return m.master.catalog().catalog().read(s -> s.tablet(before.getTabletId()))
            .getConfigIndex() == 9;
      });
    }

    // The victim comes back still hosting its old replicas: they are deleted there, each with
    // the index of the configuration that excludes it.
    List<io.nyala.common.proto.master.ReportedTabletPB> stale = new ArrayList<>();
    affected.forEach(t -> stale.add(FakeTServer.follower(t.getTabletId(), "", 1)));
    byUuid.get(victim).heartbeat(m.stub(), TabletReportPB.newBuilder()
        .addAllUpdatedTablets(stale).build());
    await().atMost(Duration.ofSeconds(10)).until(() -> affected.stream()
        .allMatch(t -> byUuid.get(victim).deleted(t.getTabletId())));
    assertThat(byUuid.get(victim).deletes).allSatisfy(d -> assertThat(d.getCasConfigIndex())
        .isEqualTo(9));
  }

  @Test
  void theLeadersReportedConfigurationReachesTheCatalog() throws Exception {
    startWithFourTServers();
    String tableId = m.stub().createTable(Tables.create("cfg", 1, 3)).getTableId();
    SysTabletEntryPB t = tablets(tableId).get(0);
    String leader = t.getReplicas(0).getUuid();
    String follower = t.getReplicas(1).getUuid();
    String outsider = byUuid.keySet().stream().filter(u -> !holds(t, u)).findFirst().get();
    byUuid.get(leader).heartbeat(m.stub(),
        FakeTServer.incremental(FakeTServer.leader(t.getTabletId(), 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablets(tableId).get(0).getState()
        == SysTabletStatePB.SYS_TABLET_RUNNING);
    List<String> swapped = List.of(leader, follower, outsider);

    // A follower's view does not count.
    byUuid.get(follower).heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.follower(t.getTabletId(), leader, 1).toBuilder()
            .addAllConfigPeerUuids(swapped).build()));
    assertThat(tablets(tableId).get(0).getReplicasList()).extracting(RaftPeerPB::getUuid)
        .doesNotContain(outsider);

    byUuid.get(leader).heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.leader(t.getTabletId(), 1).toBuilder().addAllConfigPeerUuids(swapped)
            .build()));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablets(tableId).get(0)
        .getReplicasList().stream().map(RaftPeerPB::getUuid).toList()
        .containsAll(swapped));
    assertThat(tablets(tableId).get(0).getReplicasList()).hasSize(3);
  }

  /**
   * A move whose ChangeConfig failed keeps its joiner while the joiner reports its copy in
   * progress; afterwards the joiner is deleted positively, with the catalog's configuration
   * index, and the move is retried (docs/data-safety.md, "Re-replication").
   */
  @Test
  void failedMoveKeepsACopyingJoinerThenDeletesItWithTheConfigIndexAndRetries()
      throws Exception {
    startWithFourTServers("--tserver_unresponsive_timeout_ms=5000",
        "--rereplication_retry_ms=1000");
    String tableId = m.stub().createTable(Tables.create("fail", 1, 3)).getTableId();
    SysTabletEntryPB t = tablets(tableId).get(0);
    String id = t.getTabletId();
    String victim = t.getReplicas(1).getUuid();
    FakeTServer leader = byUuid.get(t.getReplicas(0).getUuid());
    FakeTServer joiner = byUuid.values().stream().filter(x -> !holds(t, x.uuid)).findFirst()
        .orElseThrow();
    leader.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(id, 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablets(tableId).get(0).getState()
        == SysTabletStatePB.SYS_TABLET_RUNNING);
    var config = FakeTServer.leader(id, 1).toBuilder().setCommittedConfigIndex(4)
        .addAllConfigPeerUuids(t.getReplicasList().stream().map(RaftPeerPB::getUuid).toList())
        .build();
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      leader.heartbeat(m.stub(), FakeTServer.incremental(config));
      return tablets(tableId).get(0).getConfigIndex() == 4;
    });
    leader.failChanges = true;

    letOnlyDie(victim);
    await().atMost(Duration.ofSeconds(10)).until(() -> !leader.changes.isEmpty());
    var copying = FakeTServer.follower(id, leader.uuid, 1).toBuilder()
        .setTabletCopyInProgress(true).build();
    joiner.heartbeat(m.stub(), FakeTServer.incremental(copying));
    m.advanceClock(Duration.ofSeconds(2)); // past the retry interval
    heartbeatAllBut(victim);
    long sweeps = m.master.reReplicator().sweeps();
    await().atMost(Duration.ofSeconds(10))
        .until(() -> m.master.reReplicator().sweeps() >= sweeps + 3);
    assertThat(joiner.deletes).isEmpty();
    assertThat(m.master.reReplicator().isJoining(id, joiner.uuid)).isTrue();

    joiner.heartbeat(m.stub(), FakeTServer.incremental(copying.toBuilder()
        .setTabletCopyInProgress(false).build()));
    await().atMost(Duration.ofSeconds(10)).until(() -> joiner.deleted(id));
    assertThat(joiner.deletes).singleElement().satisfies(d -> {
      assertThat(d.getCasConfigIndex()).isEqualTo(4);
      assertThat(d.getTabletDropped()).isFalse();
    });
    await("the move is retried").atMost(Duration.ofSeconds(10))
        .until(() -> leader.changes.size() >= 2);
  }

  /**
   * Liveness is per tablet server: a hibernated tablet (no leader) whose former leader's tserver
   * dies is still re-replicated. The ChangeConfig goes to a live replica, which wakes the group
   * and names the new leader; the master follows that hint (docs/dense-nodes.md).
   */
  @Test
  void aHibernatedTabletsReplicaOnADeadTServerIsReplacedThroughALiveReplica()
      throws Exception {
    startWithFourTServers("--tserver_unresponsive_timeout_ms=5000");
    String tableId = m.stub().createTable(Tables.create("cold", 1, 3)).getTableId();
    SysTabletEntryPB t = tablets(tableId).get(0);
    String id = t.getTabletId();
    List<String> peers = t.getReplicasList().stream().map(RaftPeerPB::getUuid).toList();
    FakeTServer victim = byUuid.get(peers.get(0));
    FakeTServer woken = byUuid.get(peers.get(1));
    FakeTServer newLeader = byUuid.get(peers.get(2));
    victim.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(id, 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablets(tableId).get(0).getState()
        == SysTabletStatePB.SYS_TABLET_RUNNING);
    for (String u : peers) {
      byUuid.get(u).heartbeat(m.stub(), FakeTServer.incremental(
          FakeTServer.hibernated(id, 1, peers, 3)));
    }
    assertThat(m.master.catalog().reports().isHibernated(id)).isTrue();
    woken.notLeaderHint = newLeader;

    letOnlyDie(victim.uuid);
    await().atMost(Duration.ofSeconds(20)).until(() -> !holds(tablets(tableId).get(0),
        victim.uuid));

    assertThat(newLeader.changes).singleElement().satisfies(c -> {
      assertThat(c.getRemoveUuid()).isEqualTo(victim.uuid);
      assertThat(c.getExpectedPeerUuidsList()).containsExactlyInAnyOrderElementsOf(peers);
    });
    assertThat(woken.changes).hasSizeLessThanOrEqualTo(1);
    assertThat(victim.changes).isEmpty();
  }

  private void startWithFourTServers(String... flags) throws Exception {
    m = MasterFixture.start(dir, flags);
    for (int i = 0; i < 4; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      byUuid.put(ts.uuid, ts);
      ts.register(m.stub());
    }
  }

  /**
   * Moves the master's clock past the unresponsive timeout (5 s) for {@code uuid} alone. The
   * clock goes in two 3 s steps with heartbeats from the others before, between and after, so
   * that no sweep running meanwhile sees another tserver silent for 5 s: one jump of 10 s
   * followed by the heartbeats let a sweep find the others dead too and replace them.
   */
  private void letOnlyDie(String uuid) {
    heartbeatAllBut(uuid);
    m.advanceClock(Duration.ofSeconds(3));
    heartbeatAllBut(uuid);
    m.advanceClock(Duration.ofSeconds(3));
    heartbeatAllBut(uuid);
  }

  private void heartbeatAllBut(String uuid) {
    byUuid.values().stream().filter(x -> !x.uuid.equals(uuid)).forEach(x -> x.heartbeat(
        m.stub(), TabletReportPB.newBuilder().setIsIncremental(true).build()));
  }

  List<SysTabletEntryPB> tablets(String tableId) {
    return m.master.catalog().catalog().read(s -> s.tabletsOf(tableId));
  }

  static boolean holds(SysTabletEntryPB t, String uuid) {
    return t.getReplicasList().stream().anyMatch(p -> p.getUuid().equals(uuid));
  }

  static String leaderOf(SysTabletEntryPB t, String victim) {
    return t.getReplicasList().stream().map(RaftPeerPB::getUuid)
        .filter(u -> !u.equals(victim)).findFirst().orElseThrow();
  }
}
