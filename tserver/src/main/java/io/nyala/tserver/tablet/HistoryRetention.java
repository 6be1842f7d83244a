package io.nyala.tserver.tablet;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How long a tablet keeps old row versions: every version a snapshot newer than
 * {@code now - maxAge} could read stays, on leaders and followers alike, so a scan can resume on
 * another replica at its snapshot (see docs/data-safety.md, "Scans"). Time is the monotonic
 * {@code nanoClock} ({@link System#nanoTime} outside tests), never the wall clock.
 *
 * @param maxAgeNanos how long history is kept ({@code --tablet_history_max_age_sec}); 0 keeps
 *     only what pinned snapshots need
 * @param nanoClock the monotonic clock the age is measured by
 */
public record HistoryRetention(long maxAgeNanos, LongSupplier nanoClock) {
  /** No time-based history: versions go as soon as no pinned snapshot needs them. */
  public static final HistoryRetention NONE = new HistoryRetention(0, System::nanoTime);

  public HistoryRetention {
    if (maxAgeNanos < 0) {
      throw new IllegalArgumentException("history max age must not be negative: " + maxAgeNanos);
    }
  }

  /** Keeps {@code seconds} of history (--tablet_history_max_age_sec), by System.nanoTime. */
  public static HistoryRetention ofSeconds(long seconds) {
    return new HistoryRetention(TimeUnit.SECONDS.toNanos(seconds), System::nanoTime);
  }

  /** The seconds of history kept, for messages. */
  public long maxAgeSeconds() {
    return TimeUnit.NANOSECONDS.toSeconds(maxAgeNanos);
  }
}
