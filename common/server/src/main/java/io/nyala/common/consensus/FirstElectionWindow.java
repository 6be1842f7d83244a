package io.nyala.common.consensus;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a division's "first election" as soon as it stands (docs/dense-nodes.md, "Ratis traps").
 *
 * <p>Until a division first hears of a leader, Ratis draws every election timeout from the short
 * first-election range: both the wait before it stands and, in each election round, the wait for
 * votes. A short first wait makes a new or woken group elect quickly; but when votes take longer
 * than that range (a loaded box, a slow fsync of the vote), every round times out, the division
 * stands again at once, and the group stays leaderless: a woken tablet went 30 s and 22 terms
 * without a leader, a new one 22 s and some 200 rounds. Watching a division from its start, this
 * tells Ratis its first election is over once it is a candidate, so its later rounds wait the
 * normal election timeout for votes while its first stand still comes after the short one.
 *
 * <p>Ratis (3.3) has no public call for this: the watcher calls its package-private
 * {@code RaftServerImpl.setFirstElection}, the method Ratis itself calls when a candidate becomes
 * a follower. If a Ratis release drops it, the watcher logs once and does nothing, which costs
 * liveness under load, never safety: the flag only picks timeouts.
 */
public final class FirstElectionWindow {
  private static final Logger LOG = LoggerFactory.getLogger(FirstElectionWindow.class);
  /** How often a watched division's role is looked at; below the first-election range. */
  static final long POLL_MS = 20;
  /** A division with no leader and never a candidate this long is left alone. */
  static final long GIVE_UP_MS = TimeUnit.MINUTES.toMillis(2);

  private static final Method SET_FIRST_ELECTION = findSetter();
  /** One daemon thread for every server in the JVM: each poll is a few field reads. */
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "raft-first-election");
        t.setDaemon(true);
        return t;
      });
  private static final AtomicLong ENDED = new AtomicLong();

  private FirstElectionWindow() {}

  /**
   * Watches the started division of {@code groupId} on {@code server} until it has a leader or
   * has stood once; does not wait.
   */
  public static void watch(RaftServer server, RaftGroupId groupId) {
    if (SET_FIRST_ELECTION == null) {
      return;
    }
    long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GIVE_UP_MS);
    TIMER.schedule(() -> poll(server, groupId, giveUp), POLL_MS, TimeUnit.MILLISECONDS);
  }

  /** Watches every division {@code server} hosts (after its start). */
  public static void watchAll(RaftServer server) {
    for (RaftGroupId id : server.getGroupIds()) {
      watch(server, id);
    }
  }

  /** Divisions whose first election this class ended, in this JVM (for tests). */
  static long ended() {
    return ENDED.get();
  }

  private static void poll(RaftServer server, RaftGroupId groupId, long giveUpNanos) {
    RaftServer.Division d;
    try {
      d = server.getDivision(groupId);
    } catch (IOException | RuntimeException e) {
      return; // closed or removed meanwhile
    }
    if (!d.getInfo().isAlive() || d.getInfo().getLeaderId() != null) {
      return; // closed, or knows a leader: Ratis ended its first election itself
    }
    if (d.getInfo().getCurrentRole() == RaftPeerRole.CANDIDATE) {
      try {
        SET_FIRST_ELECTION.invoke(d, "nyala: a candidate waits the full election timeout");
        ENDED.incrementAndGet();
      } catch (ReflectiveOperationException | RuntimeException e) {
        LOG.warn("{}: cannot end its first election: {}", d.getMemberId(), e.toString());
      }
      return;
    }
    if (System.nanoTime() < giveUpNanos) {
      TIMER.schedule(() -> poll(server, groupId, giveUpNanos), POLL_MS, TimeUnit.MILLISECONDS);
    }
  }

  private static Method findSetter() {
    try {
      Class<?> impl = Class.forName("org.apache.ratis.server.impl.RaftServerImpl");
      Method m = impl.getDeclaredMethod("setFirstElection", Object.class);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("This Ratis has no RaftServerImpl.setFirstElection ({}): a new or woken Raft "
          + "group whose votes take longer than the first-election timeout may stay "
          + "leaderless for a while", e.toString());
      return null;
    }
  }
}
