package io.nyala.tserver.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/** The JVM's garbage collection totals, so a benchmark can say how much of its time was GC. */
final class GcTotals {
  private GcTotals() {}

  /** {@code {milliseconds, collections}} so far, over all collectors. */
  static long[] now() {
    long ms = 0;
    long count = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
      count += Math.max(0, gc.getCollectionCount());
    }
    return new long[] {ms, count};
  }

  /** What {@link #now()} grew by since {@code before}. */
  static long[] since(long[] before) {
    long[] n = now();
    return new long[] {n[0] - before[0], n[1] - before[1]};
  }
}
