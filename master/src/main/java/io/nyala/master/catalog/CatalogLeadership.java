package io.nyala.master.catalog;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Raft leadership of the catalog into "this master may serve". A new leader first writes
 * one entry (the cluster id on the very first leadership, else an empty batch): once it is
 * applied, every earlier entry is applied too, so the catalog it reads is complete. Only then
 * does it reset the in-memory reports and liveness clocks and start serving. Where it stands is
 * one {@link CatalogLeadershipState}, changed only by that type's checked transitions.
 */
public final class CatalogLeadership {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogLeadership.class);

  /** How long a new leader waits for its barrier entry before writing another. */
  static final long BARRIER_TIMEOUT_MS = 10_000;

  private final SysCatalog catalog;
  private final Runnable onReady;
  /** More ops of a new leader's barrier entry, given the cluster id (e.g. the internal CA). */
  private volatile Function<String, List<SysCatalogOpPB>> barrierOps = id -> List.of();
  /**
   * Written only by {@link #compareAndSet} under {@code this} (poll runs on the master's ticker,
   * the barrier's outcome on a Ratis thread); read without the lock.
   */
  private volatile CatalogLeadershipState state = CatalogLeadershipState.FOLLOWER;

  CatalogLeadership(SysCatalog catalog, Runnable onReady) {
    this.catalog = catalog;
    this.onReady = onReady;
  }

  /**
   * Adds {@code ops(clusterId)} to every new leader's barrier entry, so that what they store
   * (the internal CA: docs/architecture.md, "TLS and the internal CA") is in the catalog before
   * the leader serves.
   */
  void setBarrierOps(Function<String, List<SysCatalogOpPB>> ops) {
    this.barrierOps = ops;
  }

  /** Where this master stands in leading the catalog. */
  public CatalogLeadershipState state() {
    return state;
  }

  /**
   * Moves from {@code expected} to {@code next} (a checked transition); false, changing
   * nothing, if the state is no longer {@code expected}: the other thread moved first.
   */
  private synchronized boolean compareAndSet(CatalogLeadershipState expected,
      CatalogLeadershipState next) {
    if (!state.equals(expected)) {
      return false;
    }
    state = state.to(next);
    return true;
  }

  /** Follows leadership changes; returns whether this master is the ready leader. */
  boolean poll() {
    long term = catalog.leaderTerm();
    CatalogLeadershipState now = state;
    if (term < 0) {
      if (now instanceof CatalogLeadershipState.Ready r) {
        LOG.info("no longer the sys catalog leader (was in term {})", r.term());
      }
      if (!(now instanceof CatalogLeadershipState.Follower)) {
        compareAndSet(now, CatalogLeadershipState.FOLLOWER);
      }
      return false;
    }
    if (now.isReadyAt(term)) {
      return true;
    }
    CatalogLeadershipState becoming = new CatalogLeadershipState.Becoming(term);
    if (!now.isBecomingAt(term) && compareAndSet(now, becoming)) {
      try {
        becomeLeader(term);
      } catch (RuntimeException e) {
        // Without going back no later poll of this term would try again: the master would
        // lead the catalog without ever serving.
        compareAndSet(becoming, CatalogLeadershipState.FOLLOWER);
        throw e;
      }
    }
    return false;
  }

  private void becomeLeader(long term) {
    String clusterId = catalog.read(CatalogState::clusterId);
    SysCatalogBatchPB.Builder batch = SysCatalogBatchPB.newBuilder();
    if (clusterId.isEmpty()) {
      clusterId = RaftIds.newId();
      batch.addOps(SysCatalogOpPB.newBuilder().setSetClusterId(clusterId));
    }
    batch.addAllOps(barrierOps.apply(clusterId));
    // A barrier that never answers is given up on, so the next poll writes another.
    catalog.write(batch.build()).orTimeout(BARRIER_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .whenComplete((v, t) -> barrierDone(term, t));
  }

  private void barrierDone(long term, Throwable t) {
    CatalogLeadershipState becoming = new CatalogLeadershipState.Becoming(term);
    if (t == null && catalog.leaderTerm() == term && state.isBecomingAt(term)) {
      try {
        onReady.run();
      } catch (RuntimeException e) {
        // Left "becoming", no later poll of this term would try again and the master would lead
        // the catalog without ever serving: go back, and the next poll starts over.
        LOG.warn("could not start serving as the sys catalog leader in term {}", term, e);
        compareAndSet(becoming, CatalogLeadershipState.FOLLOWER);
        return;
      }
      if (compareAndSet(becoming, new CatalogLeadershipState.Ready(term))) {
        LOG.info("sys catalog leader in term {}, cluster id {}", term,
            catalog.read(CatalogState::clusterId));
      }
      return;
    }
    if (t != null) {
      // Ratis answers "leader not ready" until its first entry of the term commits.
      boolean expected = NyalaException.from(t).code() == StatusCode.SERVICE_UNAVAILABLE;
      if (expected) {
        LOG.debug("sys catalog leader in term {} not ready yet: {}", term, t.getMessage());
      } else {
        LOG.info("could not start leading the sys catalog in term {}: {}", term,
            t.getMessage());
      }
    }
    compareAndSet(becoming, CatalogLeadershipState.FOLLOWER); // the next poll tries again
  }

  /** Whether this master is the ready leader of the catalog's current term. */
  public boolean isReady() {
    return state.isReadyAt(catalog.leaderTerm());
  }

  /** Throws NOT_LEADER with a hint, or SERVICE_UNAVAILABLE while becoming the leader. */
  void check() {
    long term = catalog.leaderTerm();
    if (term < 0) {
      throw catalog.notLeader();
    }
    if (!state.isReadyAt(term)) {
      throw NyalaException.unavailable("this master is becoming the leader (term %d); retry",
          term);
    }
  }
}
