package io.nyala.master.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.master.catalog.CatalogLeadershipState.Becoming;
import io.nyala.master.catalog.CatalogLeadershipState.Follower;
import io.nyala.master.catalog.CatalogLeadershipState.Ready;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every step of the transition table in {@link CatalogLeadershipState}, legal and illegal. */
@Timeout(10)
class CatalogLeadershipStateTest {
  private static final CatalogLeadershipState FOLLOWER = CatalogLeadershipState.FOLLOWER;

  private static void assertIllegal(CatalogLeadershipState from, CatalogLeadershipState to) {
    assertThat(from.allows(to)).as("%s -> %s", from, to).isFalse();
    assertThatThrownBy(() -> from.to(to))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("illegal catalog leadership transition from " + from + " to " + to);
  }

  private static void assertLegal(CatalogLeadershipState from, CatalogLeadershipState to) {
    assertThat(from.allows(to)).as("%s -> %s", from, to).isTrue();
    assertThat(from.to(to)).isEqualTo(to);
  }

  @Test
  void aFollowerBecomesLeaderAtAnyTermButIsNeverReadyAtOnce() {
    assertLegal(FOLLOWER, new Becoming(0));
    assertLegal(FOLLOWER, new Becoming(7));
    assertIllegal(FOLLOWER, FOLLOWER);
    assertIllegal(FOLLOWER, new Ready(7));
  }

  @Test
  void becomingIsReadyOnlyInItsOwnTerm() {
    Becoming b = new Becoming(5);
    assertLegal(b, new Ready(5));
    assertIllegal(b, new Ready(4));
    assertIllegal(b, new Ready(6));
  }

  @Test
  void becomingFallsBackToFollowerOrMovesToALaterTerm() {
    Becoming b = new Becoming(5);
    assertLegal(b, FOLLOWER);
    assertLegal(b, new Becoming(6));
    assertIllegal(b, new Becoming(5));
    assertIllegal(b, new Becoming(4));
  }

  @Test
  void aReadyLeaderStepsDownOrBecomesAgainInALaterTerm() {
    Ready r = new Ready(5);
    assertLegal(r, FOLLOWER);
    assertLegal(r, new Becoming(6));
    assertIllegal(r, new Becoming(5));
    assertIllegal(r, new Becoming(4));
    assertIllegal(r, new Ready(5));
    assertIllegal(r, new Ready(6));
  }

  @Test
  void aWholeLeadershipWalksTheTable() {
    CatalogLeadershipState s = FOLLOWER;
    for (CatalogLeadershipState next : List.of(new Becoming(1), FOLLOWER, new Becoming(1),
        new Ready(1), new Becoming(3), new Ready(3), FOLLOWER)) {
      s = s.to(next);
    }
    assertThat(s).isInstanceOf(Follower.class);
  }

  @Test
  void callersAskTheStateInsteadOfComparingTerms() {
    assertThat(new Ready(5).isReadyAt(5)).isTrue();
    assertThat(new Ready(5).isReadyAt(6)).as("ready in an older term").isFalse();
    assertThat(new Becoming(5).isReadyAt(5)).isFalse();
    assertThat(FOLLOWER.isReadyAt(-1)).isFalse();
    assertThat(new Becoming(5).isBecomingAt(5)).isTrue();
    assertThat(new Becoming(5).isBecomingAt(6)).isFalse();
    assertThat(new Ready(5).isBecomingAt(5)).isFalse();
    assertThat(FOLLOWER.termOrMinusOne()).isEqualTo(-1);
    assertThat(new Becoming(4).termOrMinusOne()).isEqualTo(4);
    assertThat(new Ready(3).termOrMinusOne()).isEqualTo(3);
  }

  @Test
  void onlyALeaderHasATerm() {
    assertThatThrownBy(() -> new Becoming(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new Ready(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }
}
