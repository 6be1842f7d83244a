package io.nyala.master.catalog;

/**
 * Where this master stands in leading the sys catalog, as one value: a {@link Follower}, a
 * leader {@link Becoming} ready in a term (its barrier entry in flight; reports, liveness
 * clocks and caches not reset yet), or a {@link Ready} leader of a term that serves. A state
 * changes only through {@link #to}, which checks the step against this table and throws
 * {@link IllegalStateException} naming both states for any other:
 *
 * <pre>
 * from \ to    | Follower | Becoming(t')       | Ready(t')
 * -------------+----------+--------------------+----------
 * Follower     |    -     | any t' &gt;= 0        |    -
 * Becoming(t)  |   yes    | t' &gt; t (new term)   | t' == t
 * Ready(t)     |   yes    | t' &gt; t (new term)   |    -
 * </pre>
 *
 * <p>Becoming goes back to Follower when leadership is lost or the barrier failed (the next
 * poll starts over). Terms only grow: a leader that wins a later term without having been seen
 * as a follower becomes again from Becoming or Ready. See docs/architecture.md, "Master".
 */
public sealed interface CatalogLeadershipState {
  /** Not the catalog leader, or a leader whose barrier failed and will be retried. */
  record Follower() implements CatalogLeadershipState {}

  /** The Raft leader of {@code term}, waiting for its barrier entry to apply. */
  record Becoming(long term) implements CatalogLeadershipState {
    /** Rejects a negative term: only a leader has one. */
    public Becoming {
      checkTerm(term);
    }
  }

  /** The leader of {@code term} with a complete catalog: it serves. */
  record Ready(long term) implements CatalogLeadershipState {
    /** Rejects a negative term: only a leader has one. */
    public Ready {
      checkTerm(term);
    }
  }

  /** The state of a master that has not led yet. */
  CatalogLeadershipState FOLLOWER = new Follower();

  /** Returns {@code next} if the table above allows this step, else throws naming both. */
  default CatalogLeadershipState to(CatalogLeadershipState next) {
    if (!allows(next)) {
      throw new IllegalStateException("illegal catalog leadership transition from " + this
          + " to " + next);
    }
    return next;
  }

  /** Whether the table above allows the step from this state to {@code next}. */
  default boolean allows(CatalogLeadershipState next) {
    if (next instanceof Follower) {
      return !(this instanceof Follower);
    }
    if (next instanceof Becoming b) {
      return this instanceof Follower || b.term() > termOrMinusOne();
    }
    Ready r = (Ready) next;
    return this instanceof Becoming b && b.term() == r.term();
  }

  /** Whether this is a ready leader at {@code term}. */
  default boolean isReadyAt(long term) {
    return this instanceof Ready r && r.term() == term;
  }

  /** Whether this is becoming the leader at {@code term} (its barrier in flight). */
  default boolean isBecomingAt(long term) {
    return this instanceof Becoming b && b.term() == term;
  }

  /** The term of a Becoming or Ready state, -1 for a Follower. */
  default long termOrMinusOne() {
    if (this instanceof Becoming b) {
      return b.term();
    }
    return this instanceof Ready r ? r.term() : -1;
  }

  private static void checkTerm(long term) {
    if (term < 0) {
      throw new IllegalArgumentException("a catalog leader's term must be >= 0, got " + term);
    }
  }
}
