package io.nyala.minicluster.cli;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** A periodic progress line for long CLI operations: done/total, rate and ETA. */
final class Progress implements AutoCloseable {
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "progress");
    t.setDaemon(true);
    return t;
  });
  private final long startNanos = System.nanoTime();

  Progress(PrintStream out, String what, long total, LongSupplier done) {
    this(out, what, total, done, 1);
  }

  /** A line every {@code periodSeconds}. */
  Progress(PrintStream out, String what, long total, LongSupplier done, long periodSeconds) {
    timer.scheduleAtFixedRate(() -> out.println(line(what, total, done.getAsLong())),
        periodSeconds, periodSeconds, TimeUnit.SECONDS);
  }

  private String line(String what, long total, long done) {
    double secs = (System.nanoTime() - startNanos) / 1e9;
    double rate = secs > 0 ? done / secs : 0;
    StringBuilder sb = new StringBuilder(what).append(": ").append(done);
    if (total > 0) {
      sb.append('/').append(total)
          .append(String.format(" (%.1f%%)", 100.0 * done / total));
    }
    sb.append(String.format(", %.0f/s", rate));
    if (total > 0 && rate > 0) {
      sb.append(String.format(", ETA %.0f s", (total - done) / rate));
    }
    return sb.toString();
  }

  static double secondsSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
