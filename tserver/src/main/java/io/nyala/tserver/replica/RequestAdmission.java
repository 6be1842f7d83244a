package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import java.util.function.Consumer;

/**
 * How a request gets into a replica whose Raft group it needs (docs/dense-nodes.md, "The
 * lifecycle"): by the replica's {@link ReplicaState}, it enters a RUNNING replica, waits out
 * OPENING and HIBERNATING within its deadline, wakes a HIBERNATED one and is refused by FAILED
 * and DELETING ones. The counting of requests in flight, which keeps a hibernation round from
 * starting under a request, is the replica's ({@link TabletReplica#tryEnter}).
 */
final class RequestAdmission {
  private RequestAdmission() {}

  /**
   * Lets a request in (see {@link TabletManager#use}): waits out OPENING and HIBERNATING, has
   * {@code waker} wake a HIBERNATED replica, refuses FAILED and DELETING. Returns whether it
   * had to wait or wake (then the group may not have elected yet).
   */
  static boolean enter(TabletReplica r, long deadlineNanos, Consumer<TabletReplica> waker) {
    boolean waited = false;
    while (true) {
      ReplicaState s = r.tryEnter();
      switch (s) {
        case RUNNING -> {
          return waited;
        }
        case FAILED -> {
          r.checkNotFailed();
          throw NyalaException.illegalState("tablet %s is FAILED", r.tabletId());
        }
        case DELETING -> throw NyalaException.notFound("tablet %s not found (being deleted)",
            r.tabletId());
        case HIBERNATED -> {
          waited = true;
          waker.accept(r);
        }
        case OPENING, HIBERNATING -> {
          waited = true;
          long left = deadlineNanos - System.nanoTime();
          if (left <= 0) {
            throw NyalaException.unavailable("tablet %s is %s here; retry", r.tabletId(),
                s == ReplicaState.OPENING ? "waking up" : "hibernating");
          }
          try {
            r.awaitChange(s, left);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw NyalaException.unavailable("interrupted waiting for tablet %s", r.tabletId());
          }
        }
        default -> throw new IllegalStateException("unknown replica state " + s);
      }
    }
  }
}
