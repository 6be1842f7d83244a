package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Futures waiting for a Raft index to be applied on this replica (a scan at a snapshot index
 * waits for it: docs/architecture.md, "Read path"). Thread-safe: one monitor guards the map.
 */
final class AppliedIndexWaiters {
  /** Index → futures waiting for it to be applied; guarded by itself. */
  private final TreeMap<Long, List<CompletableFuture<Long>>> waiters = new TreeMap<>();

  /**
   * Completes once the entry at {@code index} has been applied: at once if {@code applied}
   * (read under the same monitor as {@link #signal}) is already there.
   */
  CompletableFuture<Long> whenApplied(long index, LongSupplier applied) {
    synchronized (waiters) {
      if (applied.getAsLong() >= index) {
        return CompletableFuture.completedFuture(index);
      }
      CompletableFuture<Long> f = new CompletableFuture<>();
      waiters.computeIfAbsent(index, k -> new ArrayList<>()).add(f);
      return f;
    }
  }

  /** Everything up to {@code index} is applied: completes its waiters (outside the monitor). */
  void signal(long index) {
    List<CompletableFuture<Long>> ready = new ArrayList<>();
    synchronized (waiters) {
      Map<Long, List<CompletableFuture<Long>>> head = waiters.headMap(index, true);
      head.forEach((k, fs) -> ready.addAll(fs));
      head.clear();
    }
    ready.forEach(f -> f.complete(index));
  }

  /** The replica closes: every waiter fails with {@code why}. */
  void failAll(NyalaException why) {
    List<CompletableFuture<Long>> pending = new ArrayList<>();
    synchronized (waiters) {
      waiters.values().forEach(pending::addAll);
      waiters.clear();
    }
    pending.forEach(f -> f.completeExceptionally(why));
  }
}
