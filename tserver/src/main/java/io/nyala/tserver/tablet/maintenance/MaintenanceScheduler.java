package io.nyala.tserver.tablet.maintenance;

import io.nyala.tserver.tablet.BlockTabletStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tserver's maintenance thread for tablet stores: flushes a tablet whose in-memory data is
 * too big ({@code --flush_threshold_mb}) or too old ({@code --flush_threshold_secs}), flushes the
 * largest tablets first while the process is over {@code --memory_limit_mb}, and runs the
 * compaction each tablet's {@link CompactionPolicy} picks (at most one per tablet and pass, so
 * flushes are never far away), unless {@code --enable_compaction=false}. One pass at a time
 * (a fixed-delay task never overlaps itself), so maintenance never competes with itself, even
 * on the tablet server's shared maintenance pool (docs/dense-nodes.md).
 */
public final class MaintenanceScheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceScheduler.class);

  /**
   * The triggers, in bytes and nanoseconds; {@code compactionEnabled} false
   * ({@code --enable_compaction=false}) stops background compaction, flushes go on.
   */
  public record Policy(long flushThresholdBytes, long flushThresholdNanos,
      long memoryLimitBytes, boolean compactionEnabled, CompactionPolicy compaction) {
    /** Flush triggers with the default compaction policy. */
    public Policy(long flushThresholdBytes, long flushThresholdNanos, long memoryLimitBytes) {
      this(flushThresholdBytes, flushThresholdNanos, memoryLimitBytes, true,
          CompactionPolicy.DEFAULT);
    }
  }

  private final Policy policy;
  private final Supplier<Collection<BlockTabletStore>> stores;
  private final ScheduledExecutorService thread;
  /** False when {@link #thread} is a pool shared with others, which its owner shuts down. */
  private final boolean ownsThread;
  private final ScheduledFuture<?> passes;
  /** Held by a running pass; {@link #close} takes it so that no pass outlives the close. */
  private final Object passLock = new Object();
  /** Guarded by passLock. */
  private boolean closed;
  private final AtomicLong flushes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final CompactionStats compactions = new CompactionStats();
  private final AtomicLong flushNanos = new AtomicLong();

  public MaintenanceScheduler(Policy policy, Supplier<Collection<BlockTabletStore>> stores,
      java.util.concurrent.ThreadFactory threads, long intervalMs) {
    this(policy, stores, Executors.newSingleThreadScheduledExecutor(threads), true, intervalMs);
  }

  /** Runs its passes on {@code pool}, which stays its caller's to shut down. */
  public MaintenanceScheduler(Policy policy, Supplier<Collection<BlockTabletStore>> stores,
      ScheduledExecutorService pool, long intervalMs) {
    this(policy, stores, pool, false, intervalMs);
  }

  private MaintenanceScheduler(Policy policy, Supplier<Collection<BlockTabletStore>> stores,
      ScheduledExecutorService pool, boolean ownsPool, long intervalMs) {
    this.policy = policy;
    this.stores = stores;
    this.thread = pool;
    this.ownsThread = ownsPool;
    this.passes = pool.scheduleWithFixedDelay(this::runOnceQuietly, intervalMs, intervalMs,
        TimeUnit.MILLISECONDS);
  }

  private void runOnceQuietly() {
    synchronized (passLock) {
      if (closed) {
        return;
      }
      try {
        runOnce();
      } catch (RuntimeException e) {
        LOG.warn("tablet maintenance pass failed: {}", e.getMessage(), e);
      }
    }
  }

  /** One pass over every store: size and age flushes, the memory limit, then compactions. */
  void runOnce() {
    List<BlockTabletStore> all = new ArrayList<>(stores.get());
    long now = System.nanoTime();
    for (BlockTabletStore s : all) {
      long oldest = s.oldestUnflushedWriteNanos();
      boolean big = s.memoryBytes() >= policy.flushThresholdBytes();
      boolean old = oldest != 0 && now - oldest >= policy.flushThresholdNanos();
      if (big || old) {
        flush(s);
      }
    }
    long total = all.stream().mapToLong(BlockTabletStore::memoryBytes).sum();
    if (total > policy.memoryLimitBytes()) {
      all.sort(Comparator.comparingLong(BlockTabletStore::memoryBytes).reversed());
      for (BlockTabletStore s : all) {
        if (total <= policy.memoryLimitBytes()) {
          break;
        }
        long before = s.memoryBytes();
        flush(s);
        total -= before - s.memoryBytes();
      }
    }
    if (policy.compactionEnabled()) {
      all.forEach(this::compact);
    }
  }

  private void compact(BlockTabletStore s) {
    try {
      compactions.add(s.compactIfNeeded(policy.compaction()));
    } catch (RuntimeException e) {
      failed(s, "compaction", e);
    }
  }

  private void flush(BlockTabletStore s) {
    long t0 = System.nanoTime();
    try {
      if (s.flush()) {
        flushes.incrementAndGet();
        flushNanos.addAndGet(System.nanoTime() - t0);
      }
    } catch (RuntimeException e) {
      failed(s, "flush", e);
    }
  }

  /**
   * A store closed since this pass listed it (its replica hibernated, was deleted or is being
   * replaced by a copy) has nothing left to maintain: that is no failure, and no warning.
   */
  private void failed(BlockTabletStore s, String what, RuntimeException e) {
    if (s.isClosed()) {
      LOG.debug("tablet {}: {} skipped, the store closed: {}", s.tabletId(), what, e.getMessage());
      return;
    }
    failures.incrementAndGet();
    LOG.warn("tablet {}: {} failed: {}", s.tabletId(), what, e.getMessage());
  }

  /** Flushes done by this scheduler. */
  public long flushes() {
    return flushes.get();
  }

  /** Flushes and compactions that failed on a store still open (each logged as a warning). */
  public long failures() {
    return failures.get();
  }

  /** Compactions done by this scheduler. */
  public long compactions() {
    return compactions.total();
  }

  /** What those compactions rewrote, by kind and in total. */
  public CompactionStats compactionStats() {
    return compactions;
  }

  /** Total time spent in those flushes (ms), including the snapshot request. */
  public long flushMillis() {
    return TimeUnit.NANOSECONDS.toMillis(flushNanos.get());
  }

  @Override
  public void close() {
    passes.cancel(false);
    if (ownsThread) {
      thread.shutdownNow();
      try {
        thread.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // A pass already running finishes before the stores it flushes are closed.
    synchronized (passLock) {
      closed = true;
    }
  }
}
