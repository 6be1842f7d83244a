package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.tserver.replica.PeerChannel.Peer;
import io.nyala.tserver.replica.ReplicaHibernator.RoundResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A clean stop leaves quiet groups cold (docs/dense-nodes.md): before a tablet server closes
 * Ratis and its RPC, every RUNNING replica here whose group is quiet is hibernated at once,
 * without the idle period, so that the next start adds no division for it. Only the normal
 * leader-driven round ({@link ReplicaHibernator#leadRound}, {@link HibernationRound}) closes a
 * group: where this server leads, it runs the round itself; where it follows, it asks the
 * leader to run it ({@code RequestHibernation}) and agrees as any follower. Nothing here touches
 * a term, a vote or a log, and a group that is not quiet stays RUNNING.
 *
 * <p>Threads: {@link #beforeStop} runs on the stopping thread and waits, up to its deadline, for
 * rounds on the rounds pool and for leaders' answers (on the peer-callback pool);
 * {@link #roundRequested} runs on an RPC service thread, waits there for a round already in
 * progress, and hands a new round to the rounds pool. It must not run on the threads that serve
 * HibernateReplica: the round it waits for may need one of them, here or on a peer.
 */
final class StopHibernation {
  private static final Logger LOG = LoggerFactory.getLogger(StopHibernation.class);
  /** Longest wait for a round in progress: it asks its followers, each within the timeout. */
  private static final long ROUND_WAIT_NANOS =
      TimeUnit.MILLISECONDS.toNanos(2 * ReplicaHibernator.PEER_TIMEOUT_MS);

  /** How one replica's part of the stop ended, and why when it did not hibernate. */
  record Outcome(Kind kind, String why) {
    enum Kind { HIBERNATED, NOT_QUIET, FAILED }

    static final Outcome HIBERNATED = new Outcome(Kind.HIBERNATED, null);

    static Outcome notQuiet(String why) {
      return new Outcome(Kind.NOT_QUIET, why);
    }

    static Outcome failed(String why) {
      return new Outcome(Kind.FAILED, why);
    }
  }

  /**
   * What the pre-stop phase did, for its one log line and for tests; {@code example}: one
   * replica that stayed awake and why (null if none did).
   */
  record Summary(int hibernated, int notQuiet, int failed, long millis, String example) {}

  /** Pause between looks at the groups that were not quiet yet. */
  private static final long RETRY_PAUSE_MS = 100;

  private final TabletManager tablets;
  private final ReplicaHibernator hibernator;
  private final String selfUuid;
  private final PeerChannel channel;
  private final Predicate<String> busy;
  private final Executor rounds;

  StopHibernation(TabletManager tablets, ReplicaHibernator hibernator, String selfUuid,
      PeerChannel channel, Predicate<String> busy, Executor rounds) {
    this.tablets = tablets;
    this.hibernator = hibernator;
    this.selfUuid = selfUuid;
    this.channel = channel;
    this.busy = busy;
    this.rounds = rounds;
  }

  /**
   * Hibernates every quiet RUNNING replica of this server, waiting at most {@code budgetMs};
   * whatever is unfinished then is counted failed and left to the stop (it restarts RUNNING).
   *
   * <p>A group that is not quiet at the first look is looked at again every
   * {@value #RETRY_PAUSE_MS} ms for one election timeout ({@code settleMs}, within the budget):
   * a group written just before the stop is quiet as soon as its followers learn the last
   * commit, which the leader's next heartbeat tells them (every half election timeout). Without
   * the second look a stop right after a write left that group awake, and the next start opened
   * it and held an election for it.
   */
  Summary beforeStop(long budgetMs, long settleMs) {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(budgetMs);
    long settled = start + TimeUnit.MILLISECONDS.toNanos(Math.min(budgetMs, settleMs));
    Map<TabletReplica, Outcome> last = new LinkedHashMap<>();
    List<TabletReplica> todo = new ArrayList<>();
    for (TabletReplica r : tablets.replicas()) {
      if (r.state() == ReplicaState.RUNNING) {
        todo.add(r); // others are cold already, or not ours to close (opening, failed, deleting)
      }
    }
    while (true) {
      List<TabletReplica> asked = new ArrayList<>();
      List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
      for (TabletReplica r : todo) {
        if (r.state() != ReplicaState.RUNNING) {
          continue; // a peer's round closed it meanwhile (counted below as hibernated)
        }
        long leftMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        asked.add(r);
        outcomes.add(start(r, leftMs));
      }
      for (int i = 0; i < outcomes.size(); i++) {
        last.put(asked.get(i), await(outcomes.get(i), deadline));
      }
      todo = new ArrayList<>();
      for (Map.Entry<TabletReplica, Outcome> e : last.entrySet()) {
        if (e.getValue().kind() == Outcome.Kind.NOT_QUIET
            && e.getKey().state() == ReplicaState.RUNNING) {
          todo.add(e.getKey());
        }
      }
      long now = System.nanoTime();
      if (todo.isEmpty() || now + TimeUnit.MILLISECONDS.toNanos(RETRY_PAUSE_MS) > settled) {
        break;
      }
      try {
        Thread.sleep(RETRY_PAUSE_MS); // quietness comes with a peer's heartbeat: no event here
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    int hibernated = 0;
    int notQuiet = 0;
    int failed = 0;
    String example = null;
    for (Map.Entry<TabletReplica, Outcome> e : last.entrySet()) {
      Outcome o = e.getValue();
      if (e.getKey().state() == ReplicaState.HIBERNATED) {
        hibernated++; // however the answer went: the replica is what counts
        continue;
      }
      if (o.kind() == Outcome.Kind.NOT_QUIET) {
        notQuiet++;
      } else {
        failed++;
      }
      String tablet = "tablet " + e.getKey().tabletId() + ": ";
      String why = o.why().replace(tablet, ""); // a leader's refusal names the tablet too
      LOG.debug("{}stays awake at the stop: {}", tablet, why);
      if (example == null) {
        example = tablet + why;
      }
    }
    return new Summary(hibernated, notQuiet, failed,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), example);
  }

  /** Starts {@code r}'s round, or says at once why its group is not quiet here. */
  private CompletableFuture<Outcome> start(TabletReplica r, long budgetMs) {
    if (busy.test(r.tabletId())) {
      return notQuietNow("it has open scanners or tablet copy sessions");
    }
    if (!r.idleNow()) {
      return notQuietNow("a request is in flight");
    }
    RaftServer server = tablets.groups().server();
    RaftServer.Division d = ReplicaHibernator.divisionOrNull(r, server);
    if (d == null) {
      return notQuietNow("its group is not open");
    }
    if (d.getInfo().isLeader()) {
      return runRound(r).handle((res, t) -> t != null
          ? Outcome.failed(NyalaException.from(t).detail())
          : res.hibernated() ? Outcome.HIBERNATED : Outcome.notQuiet(res.whyNot()));
    }
    Peer leader = leaderOf(d);
    if (leader == null) {
      return notQuietNow("it knows no leader");
    }
    if (!caughtUp(d.getRaftLog(), d.getInfo().getLastAppliedIndex())) {
      return notQuietNow("this follower has not committed, applied and flushed its whole log");
    }
    RequestHibernationRequestPB req = RequestHibernationRequestPB.newBuilder()
        .setTabletId(r.tabletId()).setRequestorUuid(selfUuid).build();
    try {
      return channel.requestHibernation(leader, req, budgetMs)
          .handle((v, t) -> t == null ? Outcome.HIBERNATED : classify(t));
    } catch (RuntimeException e) { // no address, a closed channel
      return CompletableFuture.completedFuture(Outcome.failed(NyalaException.from(e).detail()));
    }
  }

  private static CompletableFuture<Outcome> notQuietNow(String why) {
    return CompletableFuture.completedFuture(Outcome.notQuiet(why));
  }

  /**
   * The leader's side of RequestHibernation: runs the normal round now if this replica leads a
   * quiet group. Completes once the round ended; idempotent (a cold replica answers at once).
   */
  CompletableFuture<Void> roundRequested(String tabletId, String requestor) {
    TabletReplica r = tablets.get(tabletId);
    if (r.state() == ReplicaState.HIBERNATING) {
      // A round is running (this leader's own stop, or its idle pass): its outcome is the
      // answer. Refusing at once would let the asking server stop while that round still needs
      // its agreement, and the round would fail (every server of a cluster stopping at once).
      try {
        r.awaitChange(ReplicaState.HIBERNATING, ROUND_WAIT_NANOS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw refused(tabletId, "interrupted waiting for its round");
      }
    }
    if (r.state() == ReplicaState.HIBERNATED) {
      return CompletableFuture.completedFuture(null);
    }
    if (r.state() != ReplicaState.RUNNING) {
      throw refused(tabletId, "it is " + r.state());
    }
    if (busy.test(tabletId)) {
      throw refused(tabletId, "it has open scanners or tablet copy sessions");
    }
    return runRound(r).thenApply(res -> {
      // Another round may have closed it while this one waited in the pool: the same answer.
      if (!res.hibernated() && r.state() != ReplicaState.HIBERNATED) {
        throw refused(tabletId, res.whyNot());
      }
      LOG.debug("tablet {}: hibernated at the request of stopping tablet server {}", tabletId,
          requestor);
      return null;
    });
  }

  private CompletableFuture<RoundResult> runRound(TabletReplica r) {
    try {
      return CompletableFuture.supplyAsync(() -> hibernator.leadRound(r), rounds);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          NyalaException.unavailable("tablet %s: this tablet server is stopping", r.tabletId()));
    }
  }

  private static NyalaException refused(String tabletId, String why) {
    return NyalaException.illegalState("tablet %s: will not hibernate now: %s", tabletId, why);
  }

  /** A leader's refusal is "not quiet"; anything else (unreachable, timed out) failed. */
  private static Outcome classify(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    NyalaException ne = NyalaException.from(c);
    return ne.code() == StatusCode.ILLEGAL_STATE ? Outcome.notQuiet("its leader: " + ne.detail())
        : Outcome.failed("asking its leader: " + ne.detail());
  }

  private static Outcome await(CompletableFuture<Outcome> f, long deadline) {
    try {
      return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return Outcome.failed("unfinished within the budget");
    } catch (ExecutionException e) {
      return Outcome.failed(NyalaException.from(e.getCause()).detail());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Outcome.failed("interrupted");
    }
  }

  /** Everything in this follower's log is committed, applied and on disk. */
  private static boolean caughtUp(RaftLog log, long applied) {
    long last = log.getLastEntryTermIndex() == null ? 0 : log.getLastEntryTermIndex().getIndex();
    return log.getLastCommittedIndex() == last && applied == last && log.getFlushIndex() == last;
  }

  /** The leader this follower knows, with its RPC address, or null. */
  private static Peer leaderOf(RaftServer.Division d) {
    RaftPeerId id = d.getInfo().getLeaderId();
    for (RaftPeer p : d.getRaftConf().getAllPeers()) {
      if (p.getId().equals(id)) {
        return new Peer(p.getId().toString(), RaftPeers.rpcAddress(p));
      }
    }
    return null;
  }
}
