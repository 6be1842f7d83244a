package io.nyala.tserver.replica;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a replica is in its lifecycle (docs/dense-nodes.md). Changed only through
 * {@link TabletReplica#transition}, which refuses any step not in this table:
 *
 * <pre>
 * from          to
 * OPENING       RUNNING, FAILED, DELETING        (its Raft group was added and opened)
 * RUNNING       HIBERNATING, FAILED, DELETING
 * HIBERNATING   HIBERNATED, RUNNING, FAILED, DELETING   (RUNNING = the round was abandoned)
 * HIBERNATED    OPENING, FAILED, DELETING        (OPENING = woken: the group is added again)
 * FAILED        DELETING
 * DELETING      (none: the replica is gone once its files are)
 * </pre>
 *
 * <p>A replica starts OPENING (its metadata says it is awake), HIBERNATED (it says cold, see
 * {@code TabletMetadataPB.hibernated}) or FAILED (its metadata or key cannot be read). Only
 * HIBERNATED is persisted: every other state is rebuilt by a start.
 */
public enum ReplicaState {
  /** The Raft group is being added (at start, create or wake); not serving yet. */
  OPENING,
  /** The Raft group runs: the replica votes, replicates and (as leader) serves. */
  RUNNING,
  /**
   * A hibernation round is closing the group: new requests wait for its outcome instead of
   * starting work the closed group would lose.
   */
  HIBERNATING,
  /** Cold: the group is closed, its storage kept where Ratis does not open it at start. */
  HIBERNATED,
  /** Damaged on disk: reported, serves nothing, never crashes the server. */
  FAILED,
  /** Being deleted here; a crash mid-way is finished by the next start. */
  DELETING;

  private Set<ReplicaState> next;

  static {
    OPENING.next = EnumSet.of(RUNNING, FAILED, DELETING);
    RUNNING.next = EnumSet.of(HIBERNATING, FAILED, DELETING);
    HIBERNATING.next = EnumSet.of(HIBERNATED, RUNNING, FAILED, DELETING);
    HIBERNATED.next = EnumSet.of(OPENING, FAILED, DELETING);
    FAILED.next = EnumSet.of(DELETING);
    DELETING.next = EnumSet.noneOf(ReplicaState.class);
  }

  /** Whether the table above allows the step from this state to {@code to}. */
  public boolean canTransitionTo(ReplicaState to) {
    return next.contains(to);
  }
}
