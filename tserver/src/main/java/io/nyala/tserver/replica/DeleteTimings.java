package io.nyala.tserver.replica;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Where a {@link TabletManager#deleteTablet} spent its time: persisting the DELETING mark,
 * removing the Raft group (Ratis closes the division and deletes its log), deleting the store's
 * blocks and superblock, then the group directory and metadata files. Each step has its wall
 * time and the CPU time of the deleting thread: on a loaded machine the wall time also counts
 * waiting for a core, the CPU time does not.
 */
public record DeleteTimings(Step mark, Step group, Step blocks, Step files) {
  /** One step, in ns; {@code cpuNanos} is -1 where the JVM cannot measure thread CPU time. */
  public record Step(long wallNanos, long cpuNanos) {
    @Override
    public String toString() {
      return cpuNanos < 0 ? String.format("%.1f ms", wallNanos / 1e6)
          : String.format("%.1f ms (cpu %.1f)", wallNanos / 1e6, cpuNanos / 1e6);
    }
  }

  public long totalNanos() {
    return mark.wallNanos + group.wallNanos + blocks.wallNanos + files.wallNanos;
  }

  @Override
  public String toString() {
    return String.format("%.1f ms: mark DELETING %s, group removal %s, block deletion %s, "
        + "files %s", totalNanos() / 1e6, mark, group, blocks, files);
  }

  /** Times consecutive steps on the thread that created it. */
  static final class Clock {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private long wall = System.nanoTime();
    private long cpu = cpu();

    /** The step since the previous lap (or since creation). */
    Step lap() {
      long w = System.nanoTime();
      long c = cpu();
      Step s = new Step(w - wall, c < 0 || cpu < 0 ? -1 : c - cpu);
      wall = w;
      cpu = c;
      return s;
    }

    private static long cpu() {
      return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }
  }
}
