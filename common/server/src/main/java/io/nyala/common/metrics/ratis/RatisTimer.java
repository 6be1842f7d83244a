package io.nyala.common.metrics.ratis;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.apache.ratis.metrics.Timekeeper;

/**
 * Ratis' timer as a count, a sum of nanoseconds and the longest time since the previous read:
 * Prometheus derives a rate and a mean from the first two, and the third shows a stall between
 * scrapes. An update is two adds on striped {@link LongAdder} cells and a read of the max (a
 * compare-and-set only when the time is a new max); no reservoir, no lock, and no allocation
 * beyond the {@link Timekeeper.Context} that {@link #time()} returns. It keeps no quantiles:
 * the reservoir Ratis' default timer keeps for them cost more than the rest of its metrics
 * together (docs/performance.md, "Findings").
 *
 * <p>The count, sum and max are read one after another, not as one snapshot: a read racing an
 * update may see the update's count without its time. That is a few nanoseconds' skew in a
 * counter scraped every few seconds.
 */
final class RatisTimer implements Timekeeper, RatisMetric {
  /** What {@link #read()} returns: totals since creation, and the max since the last read. */
  record Reading(long count, long sumNanos, long maxNanos) {}

  private final LongAdder count = new LongAdder();
  private final LongAdder sumNanos = new LongAdder();
  private final LongAccumulator maxNanos = new LongAccumulator(Math::max, 0);

  @Override
  public Context time() {
    long start = System.nanoTime();
    return () -> {
      long nanos = System.nanoTime() - start;
      record(nanos);
      return nanos;
    };
  }

  /** Records one timing of {@code nanos}; a negative one (a clock gone back) is dropped. */
  void record(long nanos) {
    if (nanos < 0) {
      return;
    }
    count.increment();
    sumNanos.add(nanos);
    maxNanos.accumulate(nanos);
  }

  /** The totals, and the max since the previous read (which this read resets). */
  Reading read() {
    return new Reading(count.sum(), sumNanos.sum(), maxNanos.getThenReset());
  }
}
