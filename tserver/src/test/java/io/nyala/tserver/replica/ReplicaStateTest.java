package io.nyala.tserver.replica;

import static io.nyala.tserver.replica.ReplicaState.DELETING;
import static io.nyala.tserver.replica.ReplicaState.FAILED;
import static io.nyala.tserver.replica.ReplicaState.HIBERNATED;
import static io.nyala.tserver.replica.ReplicaState.HIBERNATING;
import static io.nyala.tserver.replica.ReplicaState.OPENING;
import static io.nyala.tserver.replica.ReplicaState.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every step of the replica lifecycle's table, allowed and refused, on a real replica. */
@Timeout(10)
class ReplicaStateTest {
  /** The table of {@link ReplicaState}'s javadoc, written out again on purpose. */
  private static final Map<ReplicaState, Set<ReplicaState>> ALLOWED = Map.of(
      OPENING, EnumSet.of(RUNNING, FAILED, DELETING),
      RUNNING, EnumSet.of(HIBERNATING, FAILED, DELETING),
      HIBERNATING, EnumSet.of(HIBERNATED, RUNNING, FAILED, DELETING),
      HIBERNATED, EnumSet.of(OPENING, FAILED, DELETING),
      FAILED, EnumSet.of(DELETING),
      DELETING, EnumSet.noneOf(ReplicaState.class));

  static Stream<Arguments> everyPair() {
    return Stream.of(ReplicaState.values()).flatMap(from -> Stream.of(ReplicaState.values())
        .map(to -> Arguments.of(from, to)));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("everyPair")
  void aStepIsTakenExactlyWhenTheTableAllowsIt(ReplicaState from, ReplicaState to) {
    TabletReplica r = replicaIn(from);
    if (ALLOWED.get(from).contains(to)) {
      r.transition(to);
      assertThat(r.state()).isEqualTo(to);
    } else {
      assertThatThrownBy(() -> r.transition(to))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE))
          .hasMessageContaining("cannot go from " + from + " to " + to);
      assertThat(r.state()).isEqualTo(from);
    }
    assertThat(from.canTransitionTo(to)).isEqualTo(ALLOWED.get(from).contains(to));
  }

  @Test
  void aReplicaStartsOpeningOrHibernatedAsItsMetadataSays() {
    assertThat(replica(false).state()).isEqualTo(OPENING);
    assertThat(replica(true).state()).isEqualTo(HIBERNATED);
  }

  @Test
  void aHibernationBeginsOnlyWhenNoRequestIsInFlight() {
    TabletReplica r = replicaIn(RUNNING);
    assertThat(r.tryEnter()).isEqualTo(RUNNING);
    assertThat(r.beginHibernation()).isFalse();
    r.exit();
    assertThat(r.beginHibernation()).isTrue();
    assertThat(r.state()).isEqualTo(HIBERNATING);
    assertThat(r.tryEnter()).isEqualTo(HIBERNATING); // kept out while the round runs
  }

  @Test
  void markFailedKeepsTheFirstCauseAndNeverUndoesADelete() {
    TabletReplica r = replicaIn(HIBERNATED);
    assertThat(r.markFailed(NyalaException.corruption("first"))).isTrue();
    assertThat(r.markFailed(NyalaException.corruption("second"))).isFalse();
    assertThat(r.failure().detail()).isEqualTo("first");
    TabletReplica deleting = replicaIn(DELETING);
    assertThat(deleting.markFailed(NyalaException.corruption("late"))).isFalse();
    assertThat(deleting.state()).isEqualTo(DELETING);
  }

  /** A replica walked to {@code s} along allowed steps. */
  static TabletReplica replicaIn(ReplicaState s) {
    TabletReplica r = replica(s == HIBERNATED);
    switch (s) {
      case OPENING, HIBERNATED -> { }
      case RUNNING -> r.transition(RUNNING);
      case HIBERNATING -> {
        r.transition(RUNNING);
        r.transition(HIBERNATING);
      }
      case FAILED, DELETING -> r.transition(s);
      default -> throw new IllegalArgumentException(s.name());
    }
    return r;
  }

  static TabletReplica replica(boolean hibernated) {
    TabletMetadataPB.Builder m = TabletMetadataPB.newBuilder()
        .setTabletId("0123456789abcdef0123456789abcdef");
    if (hibernated) {
      m.setHibernated(HibernatedStatePB.newBuilder().setTerm(3).setIndex(17));
    }
    return new TabletReplica(m.build(), null, null, null, null, null);
  }
}
