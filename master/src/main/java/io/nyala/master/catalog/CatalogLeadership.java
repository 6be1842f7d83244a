package io.nyala.master.catalog;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Raft leadership of the catalog into "this master may serve". A new leader first writes
 * one entry (the cluster id on the very first leadership, else an empty batch): once it is
 * applied, every earlier entry is applied too, so the catalog it reads is complete. Only then
 * does it reset the in-memory reports and liveness clocks and start serving.
 */
public final class CatalogLeadership {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogLeadership.class);

  /** How long a new leader waits for its barrier entry before writing another. */
  static final long BARRIER_TIMEOUT_MS = 10_000;

  private final SysCatalog catalog;
  private final Runnable onReady;
  /** The term this master is ready to serve in, or -1; written by poll and the write callback. */
  private volatile long readyTerm = -1;
  /** The term whose barrier write is in flight, or -1. */
  private volatile long becomingTerm = -1;

  CatalogLeadership(SysCatalog catalog, Runnable onReady) {
    this.catalog = catalog;
    this.onReady = onReady;
  }

  /** Follows leadership changes; returns whether this master is the ready leader. */
  boolean poll() {
    long term = catalog.leaderTerm();
    if (term < 0) {
      if (readyTerm >= 0) {
        LOG.info("no longer the sys catalog leader (was in term {})", readyTerm);
      }
      readyTerm = -1;
      becomingTerm = -1;
      return false;
    }
    if (readyTerm == term) {
      return true;
    }
    if (becomingTerm != term) {
      becomingTerm = term;
      try {
        becomeLeader(term);
      } catch (RuntimeException e) {
        // Without this reset no later poll of this term would try again: the master would
        // lead the catalog without ever serving.
        becomingTerm = -1;
        throw e;
      }
    }
    return false;
  }

  private void becomeLeader(long term) {
    String clusterId = catalog.read(CatalogState::clusterId);
    SysCatalogBatchPB.Builder batch = SysCatalogBatchPB.newBuilder();
    if (clusterId.isEmpty()) {
      batch.addOps(SysCatalogOpPB.newBuilder().setSetClusterId(RaftIds.newId()));
    }
    // A barrier that never answers is given up on, so the next poll writes another.
    catalog.write(batch.build()).orTimeout(BARRIER_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .whenComplete((v, t) -> barrierDone(term, t));
  }

  private void barrierDone(long term, Throwable t) {
    if (t == null && catalog.leaderTerm() == term) {
      onReady.run();
      readyTerm = term;
      LOG.info("sys catalog leader in term {}, cluster id {}", term,
          catalog.read(CatalogState::clusterId));
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
    becomingTerm = -1; // the next poll tries again if still leader
  }

  public boolean isReady() {
    return readyTerm >= 0 && readyTerm == catalog.leaderTerm();
  }

  /** Throws NOT_LEADER with a hint, or SERVICE_UNAVAILABLE while becoming the leader. */
  void check() {
    long term = catalog.leaderTerm();
    if (term < 0) {
      throw catalog.notLeader();
    }
    if (readyTerm != term) {
      throw NyalaException.unavailable("this master is becoming the leader (term %d); retry",
          term);
    }
  }
}
