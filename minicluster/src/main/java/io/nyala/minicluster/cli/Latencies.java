package io.nyala.minicluster.cli;

import java.util.Arrays;

/**
 * Client-side latencies of a benchmark (one sample per flush, or per operation when each
 * operation is its own write), kept exactly so that percentiles are the samples' own: a
 * loadgen run records at most one sample per row. Thread-safe.
 */
final class Latencies {
  /** Guards {@link #nanos} and {@link #count}. */
  private final Object lock = new Object();
  private long[] nanos = new long[1024];
  private int count;

  /** Records one sample of {@code nanos} nanoseconds. */
  void record(long sampleNanos) {
    synchronized (lock) {
      if (count == nanos.length) {
        nanos = Arrays.copyOf(nanos, count * 2);
      }
      nanos[count++] = sampleNanos;
    }
  }

  /** @return the percentiles of the samples so far */
  Summary summary() {
    long[] sorted;
    synchronized (lock) {
      sorted = Arrays.copyOf(nanos, count);
    }
    Arrays.sort(sorted);
    return new Summary(sorted.length, at(sorted, 0.50), at(sorted, 0.95), at(sorted, 0.99),
        sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
  }

  /** The nearest-rank percentile {@code q} of sorted samples; 0 when there are none. */
  static long at(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
  }

  /** Sample count and percentiles, in nanoseconds. */
  record Summary(long count, long p50, long p95, long p99, long max) {
    /** One line: {@code <count> <what>: p50 1.23 ms, p95 …, p99 …, max …}. */
    String format(String what) {
      return String.format("%d %s: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms", count,
          what, p50 / 1e6, p95 / 1e6, p99 / 1e6, max / 1e6);
    }
  }
}
