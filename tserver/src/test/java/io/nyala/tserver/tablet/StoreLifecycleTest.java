package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.tserver.tablet.StoreLifecycle.State;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every legal transition of a store's lifecycle, and that the others throw. */
@Timeout(10)
class StoreLifecycleTest {
  /** The table of {@link StoreLifecycle}'s javadoc: from, to. */
  private static final List<List<State>> LEGAL = List.of(
      List.of(State.OPEN, State.CLOSED),
      List.of(State.OPEN, State.RETIRED),
      List.of(State.OPEN, State.DESTROYED),
      List.of(State.CLOSED, State.RETIRED),
      List.of(State.CLOSED, State.DESTROYED),
      List.of(State.RETIRED, State.DESTROYED));

  /** A lifecycle brought to {@code s} by legal steps. */
  private static StoreLifecycle at(State s) {
    StoreLifecycle l = new StoreLifecycle("t1");
    if (s != State.OPEN) {
      l.moveTo(s);
    }
    return l;
  }

  @Test
  void everyLegalTransitionMoves() {
    for (List<State> t : LEGAL) {
      StoreLifecycle l = at(t.get(0));
      l.moveTo(t.get(1));
      assertThat(l.state()).as("%s -> %s", t.get(0), t.get(1)).isEqualTo(t.get(1));
      assertThat(l.isClosed()).isTrue();
    }
  }

  @Test
  void everyOtherTransitionThrowsNamingTabletFromAndTo() {
    for (State from : State.values()) {
      for (State to : State.values()) {
        if (LEGAL.contains(List.of(from, to))) {
          continue;
        }
        StoreLifecycle l = at(from);
        assertThatThrownBy(() -> l.moveTo(to)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("tablet t1").hasMessageContaining(from + " to " + to);
        assertThat(l.state()).isEqualTo(from);
      }
    }
  }

  @Test
  void closeAndDestroyAreIdempotent() {
    StoreLifecycle l = new StoreLifecycle("t1");
    assertThat(l.isClosed()).isFalse();
    l.close();
    l.close();
    assertThat(l.state()).isEqualTo(State.CLOSED);
    l.destroy();
    l.destroy();
    l.close();
    assertThat(l.state()).isEqualTo(State.DESTROYED);
    StoreLifecycle retired = at(State.RETIRED);
    retired.close();
    assertThat(retired.state()).isEqualTo(State.RETIRED);
  }
}
