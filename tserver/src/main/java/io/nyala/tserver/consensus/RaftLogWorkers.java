package io.nyala.tserver.consensus;

import org.apache.ratis.protocol.RaftGroupMemberId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the Raft log worker thread of a division whose tablet is being deleted, so that removing
 * its group does not wait for that thread.
 *
 * <p>Why: in Ratis 3.3.0 a division's {@code SegmentedRaftLogWorker} waits for work with a fixed
 * one-second poll, and closing the log only clears a flag, then waits for the thread to end: an
 * idle worker notices at its next poll timeout, so every group removal took up to a second
 * whatever the tablet's size (RATIS-2665 fixes it upstream by waking the worker; drop this class
 * once Nyala runs a Ratis with that fix). Interrupted, the worker ends at once; I/O it had not
 * done yet was for a log the removal deletes.
 *
 * <p>Call it only after the division's state machine has closed (nothing is applied any more)
 * and only for a group removed together with its directory, never on a plain stop: there the
 * log must be written out.
 */
public final class RaftLogWorkers {
  private static final Logger LOG = LoggerFactory.getLogger(RaftLogWorkers.class);
  /** Ratis names the thread after the division's member id and this suffix. */
  static final String SUFFIX = "-SegmentedRaftLogWorker";

  private RaftLogWorkers() {}

  /** Interrupts the log worker of {@code member}; false if no such thread runs. */
  public static boolean endForRemoval(RaftGroupMemberId member) {
    Thread t = find(member);
    if (t == null) {
      LOG.debug("{}: no Raft log worker thread found", member);
      return false;
    }
    t.interrupt();
    return true;
  }

  /**
   * Whether {@code member}'s log worker is closing its division right now: Ratis 3.3.0's worker
   * does that only after an error it cannot handle ("hit exception"), and tells no one else.
   * Call it while the division closes (its log worker then waits in that close for the state
   * machine's to finish). Other closes (a stop, a removal, a candidate told it left the group)
   * run on other threads.
   */
  public static boolean isClosingItsDivision(RaftGroupMemberId member) {
    Thread t = find(member);
    if (t == null) {
      return false;
    }
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().equals("org.apache.ratis.server.impl.RaftServerImpl")
          && e.getMethodName().equals("close")) {
        return true;
      }
    }
    return false;
  }

  /** The live thread named after {@code member}'s log worker, or null (tests check with it). */
  public static Thread find(RaftGroupMemberId member) {
    String name = member + SUFFIX;
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] threads = new Thread[root.activeCount() + 16];
    int n = root.enumerate(threads, true);
    for (int i = 0; i < n; i++) {
      if (name.equals(threads[i].getName())) {
        return threads[i];
      }
    }
    return null;
  }
}
