package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.tserver.consensus.AppliedWrites;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.replica.PeerChannel.Peer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.raftlog.RaftLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hibernates idle replicas (docs/dense-nodes.md): the Ratis side of {@link HibernationRound};
 * {@link ReplicaWaker} wakes them on demand. A cold replica costs no thread and no timer: its
 * Raft group is closed, its storage kept out of Ratis' storage dir, its state persisted in its
 * metadata.
 *
 * <p>Threads: {@link #pass} runs on the server's maintenance thread and hands rounds to
 * {@code rounds}; {@link #hibernate} runs on an RPC thread (a follower asked) or a round;
 * {@link ReplicaWaker#wake} runs on the thread of the request that needs the group. Each replica's
 * lifecycle state (under its monitor) orders them: only one of them acts on a replica at once.
 */
public final class ReplicaHibernator {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaHibernator.class);
  /** How long one peer may take to answer a hibernate or wake request. */
  static final long PEER_TIMEOUT_MS = 5_000;
  /** At most this many rounds run at once: each holds a thread while its followers answer. */
  private static final int MAX_ROUNDS = 4;
  /** How long a drainer runs rounds before it queues itself again behind the other drainers. */
  private static final long DRAIN_SLICE_NANOS = 500_000_000L;

  private final TabletManager tablets;
  private final String selfUuid;
  private final PeerChannel channel;
  private final long afterNanos;
  private final long retryWindowNanos;
  private final Predicate<String> busy;
  private final Executor rounds;
  private final ReplicaHealer healer;
  /** Idle replicas waiting for a round, and their ids (a replica is queued once). */
  private final Queue<TabletReplica> candidates = new ConcurrentLinkedQueue<>();
  private final Set<String> queued = ConcurrentHashMap.newKeySet();
  private final AtomicInteger drainers = new AtomicInteger();
  private final AtomicLong hibernations = new AtomicLong();
  private final ReplicaWaker waker;
  private final StopHibernation stop;
  private final ColdReads coldReads;

  /**
   * @param afterMs {@code --tablet_hibernate_after_ms} (0 = never hibernate; waking still works)
   * @param retryWindowMs how long a client may still retry a write (Ratis' retry cache expiry):
   *     how long each replica keeps its applied writes' results, which answer such a retry
   *     after the group closed and reopened (Ratis' retry cache does not survive the close)
   * @param busy tablets with open scanners or copy sessions (they hold the store open)
   */
  public ReplicaHibernator(TabletManager tablets, String selfUuid, PeerChannel channel,
      long afterMs, long retryWindowMs, Predicate<String> busy, Executor rounds) {
    this.tablets = tablets;
    this.selfUuid = selfUuid;
    this.channel = channel;
    this.afterNanos = afterMs <= 0 ? Long.MAX_VALUE : afterMs * 1_000_000L;
    this.retryWindowNanos = retryWindowMs * 1_000_000L;
    this.busy = busy;
    this.rounds = rounds;
    this.healer = new ReplicaHealer(tablets, channel, selfUuid);
    this.waker = new ReplicaWaker(tablets, selfUuid, channel);
    tablets.setWaker(waker::wake);
    this.stop = new StopHibernation(tablets, this, selfUuid, channel, busy, rounds);
    this.coldReads = new ColdReads(tablets, selfUuid, channel, busy);
  }

  /**
   * A clean stop's first step (docs/dense-nodes.md, "A clean stop leaves quiet groups cold"):
   * hibernates every quiet awake replica of this server now, within {@code budgetMs}, and logs
   * what it did. Nothing when hibernation is off.
   */
  public void beforeStop(long budgetMs) {
    if (budgetMs <= 0 || afterNanos == Long.MAX_VALUE) {
      return;
    }
    // One election timeout: two of the leaders' heartbeats, which tell followers the commit.
    long settleMs = RaftServerConfigKeys.Rpc.timeoutMin(tablets.groups().server().getProperties())
        .toLong(TimeUnit.MILLISECONDS);
    StopHibernation.Summary s = stop.beforeStop(budgetMs, settleMs);
    LOG.info("before stopping: hibernated {} quiet replicas, {} not quiet, {} failed or "
        + "unfinished, in {} ms (budget {} ms){}", s.hibernated(), s.notQuiet(), s.failed(),
        s.millis(), budgetMs, s.example() == null ? "" : "; e.g. " + s.example());
  }

  /**
   * The RequestHibernation RPC: a stopping follower's server asks this leader to run the
   * tablet's round now; completes once it ended, exceptionally (ILLEGAL_STATE) if refused.
   */
  public CompletableFuture<Void> hibernationRequested(String tabletId, String requestor) {
    return stop.roundRequested(tabletId, requestor);
  }

  /**
   * One look at every replica: queues idle ones for a round, heals lost wakes. Rounds then run
   * back to back on at most {@link #MAX_ROUNDS} drainers rather than a few per pass, so 2,000
   * replicas go cold in the time their rounds take, not in passes.
   */
  public void pass() {
    long now = System.nanoTime();
    for (TabletReplica r : tablets.replicas()) {
      r.appliedWrites().expire(now - retryWindowNanos);
      if (r.state() != ReplicaState.RUNNING) {
        coldReads.closeUnused(r, now);
        continue;
      }
      healer.check(r, now);
      if (afterNanos != Long.MAX_VALUE && idle(r, now) && queued.add(r.tabletId())) {
        candidates.add(r);
      }
    }
    startDrainers();
  }

  private void startDrainers() {
    while (!candidates.isEmpty()) {
      int n = drainers.get();
      if (n >= MAX_ROUNDS) {
        return;
      }
      if (drainers.compareAndSet(n, n + 1)) {
        try {
          rounds.execute(this::drain);
        } catch (RejectedExecutionException e) {
          drainers.decrementAndGet(); // the server is stopping
          return;
        }
      }
    }
  }

  /**
   * Runs queued rounds for up to {@link #DRAIN_SLICE_NANOS}, then hands its thread back to the
   * rounds pool and queues itself again if work is left.
   */
  private void drain() {
    long until = System.nanoTime() + DRAIN_SLICE_NANOS;
    try {
      TabletReplica r;
      while (System.nanoTime() < until && (r = candidates.poll()) != null) {
        try {
          if (r.state() == ReplicaState.RUNNING && idle(r, System.nanoTime())) {
            RoundResult o = leadRound(r);
            if (o.worthLogging()) {
              // Said each idle period while it lasts: a group that never goes quiet (a follower
              // that cannot catch up) keeps its threads, and this line is how an operator
              // learns why.
              LOG.info("tablet {}: stays awake: {}", r.tabletId(), o.whyNot());
            }
          }
        } catch (RuntimeException e) {
          LOG.warn("tablet {}: hibernation round failed: {}", r.tabletId(), e.getMessage());
        } finally {
          queued.remove(r.tabletId());
        }
      }
    } finally {
      drainers.decrementAndGet();
    }
    startDrainers();
  }

  /**
   * Idle for the idle period and nothing open on it: the replica's {@link AppliedWrites} keeps
   * every result for the whole retry window and answers retries after a wake, so a written
   * replica need not wait out that window (docs/dense-nodes.md, "Exactly-once across
   * hibernation").
   */
  private boolean idle(TabletReplica r, long now) {
    return now - r.lastActivityNanos() >= afterNanos
        && !busy.test(r.tabletId());
  }

  /**
   * What {@link #leadRound} did: hibernated, or why not; {@code worthLogging} is false for the
   * ordinary reasons (not the leader, a request came in).
   */
  record RoundResult(boolean hibernated, String whyNot, boolean worthLogging) {
    static final RoundResult DONE = new RoundResult(true, null, false);

    static RoundResult skipped(String why) {
      return new RoundResult(false, why, false);
    }
  }

  /**
   * The leader's side of a round, if this replica leads a quiet group: the idle period is the
   * caller's business (a pass checks it, a clean stop skips it: {@link StopHibernation}).
   */
  RoundResult leadRound(TabletReplica r) {
    RaftServer server = tablets.groups().server();
    RaftServer.Division d = divisionOrNull(r, server);
    if (d == null || !d.getInfo().isLeader()) {
      return RoundResult.skipped("this replica is not its group's leader");
    }
    String notQuiet = GroupQuietness.whyNotQuiet(d);
    if (notQuiet != null) {
      return new RoundResult(false, notQuiet, true);
    }
    long term = d.getInfo().getCurrentTerm();
    long index = d.getRaftLog().getLastEntryTermIndex().getIndex();
    List<Peer> followers = new ArrayList<>();
    for (RaftPeer p : d.getRaftConf().getAllPeers()) {
      if (!p.getId().equals(server.getId())) {
        followers.add(new Peer(p.getId().toString(), RaftPeers.rpcAddress(p)));
      }
    }
    if (!r.beginHibernation()) {
      return RoundResult.skipped("it is " + r.state() + " or serving a request");
    }
    HibernationRound.Outcome o = HibernationRound.run(new HibernationRound.Self() {
      @Override
      public String tabletId() {
        return r.tabletId();
      }

      @Override
      public String uuid() {
        return selfUuid;
      }

      @Override
      public String hibernate(long t, long i) {
        return hibernateBegun(r, t, i);
      }
    }, term, index, followers, channel, PEER_TIMEOUT_MS);
    if (o.hibernated()) {
      return RoundResult.DONE;
    }
    synchronized (r) {
      if (r.state() == ReplicaState.HIBERNATING) {
        r.transition(ReplicaState.RUNNING);
      }
    }
    return new RoundResult(false, o.refusals() + "; woke " + o.woken(), true);
  }

  /**
   * A follower's side: hibernates at {@code term} and {@code index} or says why not (the
   * leader then wakes whoever agreed). Hibernating again at the same place is a no-op.
   */
  public void hibernate(String tabletId, long term, long index) {
    TabletReplica r = tablets.get(tabletId);
    String why;
    if (r.state() == ReplicaState.HIBERNATED) {
      HibernatedStatePB h = r.metadata().getHibernated();
      why = h.getTerm() == term && h.getIndex() == index ? null
          : "it is already hibernated at term " + h.getTerm() + ", index " + h.getIndex();
    } else if (busy.test(tabletId)) {
      why = "it has open scanners or tablet copy sessions";
    } else if (!r.beginHibernation()) {
      why = "it is " + r.state() + " or serving a request";
    } else {
      why = hibernateBegun(r, term, index);
      if (why != null) {
        synchronized (r) {
          if (r.state() == ReplicaState.HIBERNATING) {
            r.transition(ReplicaState.RUNNING);
          }
        }
      }
    }
    if (why != null) {
      throw NyalaException.illegalState("tablet %s: will not hibernate at term %d, index %d: %s",
          tabletId, term, index, why);
    }
  }

  /**
   * Closes the group of a HIBERNATING replica if it is at {@code term} and {@code index}: flush,
   * close (storage kept), persist the hibernated state, move the group dir out of Ratis' sight.
   * Returns null when done, else why not (the replica is then still open).
   */
  private String hibernateBegun(TabletReplica r, long term, long index) {
    RaftServer server = tablets.groups().server();
    RaftServer.Division d = divisionOrNull(r, server);
    if (d == null) {
      return "its Raft group is not open here";
    }
    RaftLog log = d.getRaftLog();
    HibernationRound.Position at = new HibernationRound.Position(d.getInfo().getCurrentTerm(),
        log.getLastEntryTermIndex() == null ? 0 : log.getLastEntryTermIndex().getIndex(),
        log.getLastCommittedIndex(), d.getInfo().getLastAppliedIndex(), log.getFlushIndex());
    String why = HibernationRound.refusal(at, term, index);
    if (why != null) {
      return why;
    }
    RaftConfiguration conf = d.getRaftConf();
    if (!conf.getPreviousPeers().isEmpty()) {
      return "a configuration change is in progress";
    }
    long liveRows;
    try {
      TabletStateMachine sm = r.stateMachine();
      sm.store().flush(); // a cold replica holds no memory store and replays nothing
      liveRows = sm.store().liveRowCount();
    } catch (RuntimeException e) {
      return "cannot flush its store: " + NyalaException.from(e).detail();
    }
    HibernatedStatePB.Builder h = HibernatedStatePB.newBuilder().setTerm(term).setIndex(index)
        .setConfigIndex(conf.getLogEntryIndex()).setLiveRows(liveRows)
        .setHibernatedTimeMillis(System.currentTimeMillis())
        .addAllAppliedWrites(r.appliedWrites().toPb(System.nanoTime()));
    for (RaftPeer p : conf.getCurrentPeers()) {
      h.addPeers(RaftPeers.fromRatis(p));
    }
    return closeCold(r, server, h.build());
  }

  /**
   * The end of {@link #hibernateBegun}, once the replica is flushed and quiet: closes its group
   * and records it cold in {@code h}. Returns null when done, else why not.
   */
  private String closeCold(TabletReplica r, RaftServer server, HibernatedStatePB h) {
    RaftGroups groups = tablets.groups();
    try {
      groups.close(r.groupId());
    } catch (RuntimeException e) {
      if (divisionOrNull(r, server) != null) {
        return "cannot close its group: " + NyalaException.from(e).detail();
      }
      // Closed all the same (only the answer failed): recorded as hibernated, as planned.
      LOG.warn("tablet {}: closing its group reported {}, but it is closed", r.tabletId(),
          e.getMessage());
    }
    r.groupClosed();
    try {
      synchronized (r) {
        tablets.metadataFiles().persist(r, r.metadata().toBuilder().setHibernated(h).build());
      }
      RaftGroups.moveGroupDir(groups.groupDir(r.groupId()), groups.coldGroupDir(r.groupId()));
    } catch (IOException | RuntimeException e) {
      // The group is closed: a restart places its dir by the metadata (StartupRecovery#load).
      LOG.warn("tablet {}: hibernated, but {}", r.tabletId(), e.getMessage());
    }
    r.transition(ReplicaState.HIBERNATED);
    hibernations.incrementAndGet();
    LOG.debug("tablet {}: hibernated at term {}, index {}", r.tabletId(), h.getTerm(),
        h.getIndex());
    tablets.reportChanged(r.tabletId());
    return null;
  }

  /** The WakeReplica RPC: wakes the replica if it is cold; an awake one is left alone. */
  public void wakeRequested(String tabletId) {
    waker.wakeRequested(tabletId);
  }

  public long hibernations() {
    return hibernations.get();
  }

  public long wakes() {
    return waker.wakes();
  }

  /** Scans of cold replicas without a wake (docs/dense-nodes.md). */
  public ColdReads coldReads() {
    return coldReads;
  }

  /** Where each wake's duration goes (ms); call before any request. */
  public void onWake(LongConsumer sink) {
    waker.onWake(sink);
  }


  static RaftServer.Division divisionOrNull(TabletReplica r, RaftServer server) {
    try {
      return server == null ? null : server.getDivision(r.groupId());
    } catch (IOException e) {
      return null;
    }
  }
}
