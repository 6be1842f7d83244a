package io.nyala.tserver.fs.log;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Punches the ranges that deletions and abandoned creations free, on one background thread
 * ({@code lbm-hole-puncher}), in the order they were queued. Skips a container deleted in the
 * meantime: its files are gone.
 */
final class HolePunchQueue {
  private final ExecutorService puncher;
  private final AtomicLong holesPunched = new AtomicLong();
  /** Asks the block manager, under its lock, whether a container's files are deleted. */
  private final Predicate<Container> deleted;

  HolePunchQueue(Predicate<Container> deleted) {
    this.deleted = deleted;
    puncher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "lbm-hole-puncher");
      t.setDaemon(true);
      return t;
    });
  }

  /** Queues the freed ranges of one deletion (or abandoned creation) in container {@code c}. */
  void enqueue(Container c, List<LogBlockManager.Loc> freed) {
    puncher.execute(() -> punch(c, freed));
  }

  /** Blocks freed by the ranges the OS really punched so far. */
  long holesPunched() {
    return holesPunched.get();
  }

  /**
   * Punches the freed ranges of one deletion in one container, merging neighbours: a batch
   * that frees a run of blocks costs one fallocate, not one per block.
   */
  private void punch(Container c, List<LogBlockManager.Loc> freed) {
    if (deleted.test(c)) {
      return;
    }
    freed.sort(Comparator.comparingLong(LogBlockManager.Loc::offset));
    List<Fallocate.Range> ranges = new ArrayList<>();
    for (LogBlockManager.Loc l : freed) {
      long end = c.alignUp(l.offset() + l.length());
      Fallocate.Range last = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
      if (last != null && last.offset() + last.length() == l.offset() + c.headerBytes) {
        ranges.set(ranges.size() - 1, new Fallocate.Range(last.offset(),
            end + c.headerBytes - last.offset(), last.weight() + 1));
      } else {
        ranges.add(new Fallocate.Range(l.offset() + c.headerBytes, end - l.offset(), 1));
      }
    }
    holesPunched.addAndGet(HolePuncher.punch(c.dataPath(), ranges));
  }

  /** Waits until every hole queued so far is punched. */
  void await() {
    try {
      puncher.submit(() -> { }).get();
    } catch (Exception e) {
      throw new IllegalStateException("hole punching failed", e);
    }
  }

  /** Punches what is queued (waiting up to a minute), then stops the thread. */
  void close() {
    puncher.shutdown();
    try {
      puncher.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
