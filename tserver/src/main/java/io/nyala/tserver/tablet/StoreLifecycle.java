package io.nyala.tserver.tablet;

import java.util.EnumSet;
import java.util.Set;

/**
 * The lifecycle of one {@link BlockTabletStore}, as one explicit state changed only by checked
 * transitions (an illegal one throws {@link IllegalStateException} naming the tablet, from and
 * to). Only {@link State#OPEN} applies, scans, flushes and compacts; every other state is closed
 * for good (a store is never reopened: its replica opens a new one).
 *
 * <pre>
 * from \ to    CLOSED  RETIRED  DESTROYED
 * OPEN         yes     yes      yes
 * CLOSED       -       yes      yes
 * RETIRED      -       -        yes
 * DESTROYED    -       -        -
 * </pre>
 *
 * Nothing moves to OPEN. Closing a store that is no longer open, or destroying one already
 * destroyed, is a no-op of the caller ({@link #close}, {@link #destroy}), not a transition.
 */
public final class StoreLifecycle {
  /** Where a store is in its life. */
  public enum State {
    /** Serving: applies, scans and maintenance run. */
    OPEN,
    /** Stopped (its replica hibernated, closed or is being replaced); data stays on disk. */
    CLOSED,
    /** Closed after a tablet copy installed another superblock; its own layers were let go. */
    RETIRED,
    /** Closed and its blocks and superblock deleted: the tablet is being deleted. */
    DESTROYED;

    private Set<State> next() {
      return switch (this) {
        case OPEN -> EnumSet.of(CLOSED, RETIRED, DESTROYED);
        case CLOSED -> EnumSet.of(RETIRED, DESTROYED);
        case RETIRED -> EnumSet.of(DESTROYED);
        case DESTROYED -> EnumSet.noneOf(State.class);
      };
    }

    /** Whether the table above allows this state to move to {@code to}. */
    public boolean canMoveTo(State to) {
      return next().contains(to);
    }
  }

  private final String tabletId;
  /** Written under this object's monitor, read lock-free. */
  private volatile State state = State.OPEN;

  /** A lifecycle that starts {@link State#OPEN}. */
  public StoreLifecycle(String tabletId) {
    this.tabletId = tabletId;
  }

  /** The current state. */
  public State state() {
    return state;
  }

  /** Whether the store is no longer {@link State#OPEN}. */
  public boolean isClosed() {
    return state != State.OPEN;
  }

  /** Moves to {@code to}; IllegalStateException naming tablet, from and to if not allowed. */
  public synchronized void moveTo(State to) {
    State from = state;
    if (!from.canMoveTo(to)) {
      throw new IllegalStateException(
          "tablet " + tabletId + ": store cannot move from " + from + " to " + to);
    }
    state = to;
  }

  /** Moves an open store to {@link State#CLOSED}; a store already closed stays as it is. */
  public synchronized void close() {
    if (state == State.OPEN) {
      moveTo(State.CLOSED);
    }
  }

  /** Moves to {@link State#DESTROYED} unless already there. */
  public synchronized void destroy() {
    if (state != State.DESTROYED) {
      moveTo(State.DESTROYED);
    }
  }
}
