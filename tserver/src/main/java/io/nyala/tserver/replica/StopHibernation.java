package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.tserver.replica.PeerChannel.Peer;
import io.nyala.tserver.replica.ReplicaHibernator.RoundResult;
import java.util.ArrayList;
import java.util.List;
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

  /** How one replica's part of the stop ended. */
  enum Outcome { HIBERNATED, NOT_QUIET, FAILED }

  /** What the pre-stop phase did, for its one log line and for tests. */
  record Summary(int hibernated, int notQuiet, int failed, long millis) {}

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
   */
  Summary beforeStop(long budgetMs) {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(budgetMs);
    List<TabletReplica> asked = new ArrayList<>();
    List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
    int notQuiet = 0;
    for (TabletReplica r : tablets.replicas()) {
      if (r.state() != ReplicaState.RUNNING) {
        continue; // cold already, or not ours to close (opening, failed, deleting)
      }
      CompletableFuture<Outcome> f = start(r, budgetMs);
      if (f == null) {
        notQuiet++;
      } else {
        asked.add(r);
        outcomes.add(f);
      }
    }
    int hibernated = 0;
    int failed = 0;
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome o = await(outcomes.get(i), deadline);
      if (asked.get(i).state() == ReplicaState.HIBERNATED) {
        hibernated++; // however the answer went: the replica is what counts
      } else if (o == Outcome.NOT_QUIET) {
        notQuiet++;
      } else {
        failed++;
      }
    }
    return new Summary(hibernated, notQuiet, failed,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /** Starts {@code r}'s round, or returns null when it is plainly not quiet here. */
  private CompletableFuture<Outcome> start(TabletReplica r, long budgetMs) {
    if (busy.test(r.tabletId()) || !r.idleNow()) {
      return null;
    }
    RaftServer server = tablets.groups().server();
    RaftServer.Division d = ReplicaHibernator.divisionOrNull(r, server);
    if (d == null) {
      return null;
    }
    if (d.getInfo().isLeader()) {
      return runRound(r).handle((res, t) -> t != null ? Outcome.FAILED
          : res.hibernated() ? Outcome.HIBERNATED : Outcome.NOT_QUIET);
    }
    Peer leader = leaderOf(d);
    if (leader == null || !caughtUp(d.getRaftLog(), d.getInfo().getLastAppliedIndex())) {
      return null; // the leader would find this replica behind and refuse
    }
    RequestHibernationRequestPB req = RequestHibernationRequestPB.newBuilder()
        .setTabletId(r.tabletId()).setRequestorUuid(selfUuid).build();
    try {
      return channel.requestHibernation(leader, req, budgetMs)
          .handle((v, t) -> t == null ? Outcome.HIBERNATED : classify(t));
    } catch (RuntimeException e) { // no address, a closed channel
      return CompletableFuture.completedFuture(Outcome.FAILED);
    }
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
    return c instanceof NyalaException ne && ne.code() == StatusCode.ILLEGAL_STATE
        ? Outcome.NOT_QUIET : Outcome.FAILED;
  }

  private static Outcome await(CompletableFuture<Outcome> f, long deadline) {
    try {
      return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return Outcome.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Outcome.FAILED;
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
