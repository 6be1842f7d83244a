package io.nyala.master.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletStatePB;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Leaders, hibernated tablets and hot/cold counts as {@link ReplicaReports} derives them. */
@Timeout(10)
class ReplicaReportsTest {
  private static final String T = "tablet-1";
  private static final List<String> PEERS = List.of("a", "b", "c");

  private final List<String> changed = new ArrayList<>();
  private final ReplicaReports reports = new ReplicaReports(changed::add);

  private static ReportedTabletPB leader(long term) {
    return ReportedTabletPB.newBuilder().setTabletId(T).setState(TabletStatePB.RUNNING)
        .setRole(RaftRolePB.LEADER).setTerm(term).build();
  }

  private static ReportedTabletPB follower(String leaderUuid, long term) {
    return ReportedTabletPB.newBuilder().setTabletId(T).setState(TabletStatePB.RUNNING)
        .setRole(RaftRolePB.FOLLOWER).setLeaderUuid(leaderUuid).setTerm(term).build();
  }

  /** As the tserver reports a cold replica: no role, no leader, the term it closed at. */
  private static ReportedTabletPB hibernated(long term) {
    return ReportedTabletPB.newBuilder().setTabletId(T).setState(TabletStatePB.HIBERNATED)
        .setTerm(term).addAllConfigPeerUuids(PEERS).setCommittedConfigIndex(3).build();
  }

  /** a leads at term 4, b and c follow. */
  private void awake() {
    reports.update("a", leader(4));
    reports.update("b", follower("a", 4));
    reports.update("c", follower("a", 4));
    changed.clear();
  }

  @Test
  void theLeaderReportingHibernatedForgetsTheLeaderAndInvalidatesLocations() {
    awake();

    assertThat(reports.update("a", hibernated(4))).isNull();

    assertThat(reports.leader(T)).isNull();
    assertThat(reports.isHibernated(T)).isTrue();
    assertThat(reports.hibernatedAt(T)).isEqualTo(4);
    assertThat(changed).containsExactly(T);
  }

  @Test
  void followersHibernatingFirstKeepTheLeaderUntilEveryReplicaIsHibernated() {
    awake();
    reports.update("b", hibernated(4));
    reports.update("c", hibernated(4));
    assertThat(reports.leader(T)).isEqualTo(new ReplicaReports.Leader("a", 4));
    assertThat(changed).isEmpty();

    reports.update("a", hibernated(4));

    assertThat(reports.isHibernated(T)).isTrue();
    assertThat(changed).containsExactly(T);
  }

  @Test
  void everyReplicaHibernatedMakesTheTabletColdForAMasterThatNeverSawItsLeader() {
    reports.update("b", hibernated(6));
    assertThat(reports.isHibernated(T)).as("every replica reported so far is cold").isTrue();
    reports.update("a", hibernated(6));
    reports.update("c", hibernated(6));

    assertThat(reports.leader(T)).isNull();
    assertThat(reports.hibernatedAt(T)).isEqualTo(6);
    assertThat(changed).containsExactly(T);
  }

  @Test
  void aLateReportOfTheLeaderFromBeforeTheHibernationDoesNotBringItBack() {
    awake();
    reports.update("a", hibernated(4));

    assertThat(reports.update("b", follower("a", 4))).isNull();
    assertThat(reports.update("a", leader(4))).isNull();

    assertThat(reports.isHibernated(T)).isTrue();
    assertThat(changed).containsExactly(T);
  }

  /**
   * A new master hears first of a follower that closed in a round the leader then abandoned
   * (the follower is woken back under the same leader and term): the leader's own report at
   * that term is taken, a follower's word for it is not.
   */
  @Test
  void aLeaderWhoseHibernationWasAbandonedIsTakenAtTheSameTerm() {
    reports.update("b", hibernated(4));
    assertThat(reports.isHibernated(T)).isTrue();

    assertThat(reports.update("c", follower("a", 4))).isNull();
    assertThat(reports.update("a", leader(4))).isEqualTo(new ReplicaReports.Leader("a", 4));

    assertThat(reports.isHibernated(T)).isFalse();
    reports.update("b", follower("a", 4));
    assertThat(reports.leader(T)).isEqualTo(new ReplicaReports.Leader("a", 4));
  }

  @Test
  void aLeaderOfAHigherTermAfterTheWakeIsTheLeaderAgain() {
    awake();
    reports.update("a", hibernated(4));
    changed.clear();

    reports.update("b", follower("", 5)); // woken, no leader yet: still none to name
    assertThat(reports.leader(T)).isNull();
    assertThat(reports.update("c", leader(5))).isEqualTo(new ReplicaReports.Leader("c", 5));

    assertThat(reports.isHibernated(T)).isFalse();
    assertThat(reports.hibernatedAt(T)).isEqualTo(-1);
    assertThat(changed).containsExactly(T);
  }

  @Test
  void aStaleHibernatedReportDoesNotForgetANewerLeader() {
    reports.update("a", hibernated(4));
    reports.update("b", hibernated(4));
    reports.update("c", leader(5));
    changed.clear();

    reports.update("a", hibernated(4));
    reports.update("b", hibernated(4));

    assertThat(reports.leader(T)).isEqualTo(new ReplicaReports.Leader("c", 5));
    assertThat(changed).isEmpty();
  }

  @Test
  void hotAndColdReplicasAreCountedPerTabletServer() {
    reports.update("a", leader(4));
    reports.update("a", hibernated(2).toBuilder().setTabletId("t2").build());
    reports.update("a", hibernated(2).toBuilder().setTabletId("t3").build());
    reports.update("b", ReportedTabletPB.newBuilder().setTabletId("t2")
        .setState(TabletStatePB.BOOTSTRAPPING).build());
    reports.update("b", ReportedTabletPB.newBuilder().setTabletId("t3")
        .setState(TabletStatePB.FAILED).build());

    assertThat(reports.hotColdByTserver()).containsOnly(
        Map.entry("a", new ReplicaReports.HotCold(1, 2)),
        Map.entry("b", new ReplicaReports.HotCold(1, 0)));
  }

  @Test
  void callsGoToTheLiveLeaderElseRoundTheUsableReplicasOfAHibernatedTablet() {
    awake();
    assertThat(reports.callTarget(T, PEERS, u -> true, 7)).isEqualTo("a");

    reports.update("a", hibernated(4));
    reports.update("b", hibernated(4));
    reports.update("c", hibernated(4));
    Set<String> usable = Set.of("b", "c"); // a's tserver died while the tablet was cold

    assertThat(reports.callTarget(T, PEERS, usable::contains, 0)).isEqualTo("b");
    assertThat(reports.callTarget(T, PEERS, usable::contains, 1)).isEqualTo("c");
    assertThat(reports.callTarget(T, PEERS, usable::contains, 2)).isEqualTo("b");
    assertThat(reports.callTarget(T, PEERS, u -> false, 0)).isNull();
  }

  @Test
  void aDeadLeaderOfALiveGroupIsWaitedForButOneOfAClosedGroupIsNot() {
    awake();
    Set<String> usable = Set.of("b", "c");
    assertThat(reports.callTarget(T, PEERS, usable::contains, 0))
        .as("b and c are awake: they elect, the next leader report names whom to call")
        .isNull();

    // b and c closed before a reported its own hibernation, then a's tserver died.
    reports.update("b", hibernated(4));
    reports.update("c", hibernated(4));

    assertThat(reports.leader(T)).isNotNull();
    assertThat(reports.callTarget(T, PEERS, usable::contains, 0)).isEqualTo("b");
  }

  @Test
  void withNoLeaderReportedYetAUsableReplicaIsCalled() {
    assertThat(reports.callTarget(T, PEERS, u -> !u.equals("a"), 0)).isEqualTo("b");
  }
}
