package io.nyala.tserver.tablet;

import java.util.ArrayDeque;

/**
 * Maps time to Raft index for one replica, to find its "ancient history mark": the newest index
 * this replica had applied at {@code now - maxAge}. MVCC timestamps are Raft indexes, and the
 * applied index only grows, so any snapshot taken (on any replica) after {@code now - maxAge}
 * is at or above the mark: versions older than the newest one at or before the mark are needed
 * by no such snapshot. A follower lags its leader, so its own mark is at or below the leader's:
 * conservative, never too new.
 *
 * <p>The replica records (monotonic time, applied index) samples at most every
 * {@code maxAge / 64}; the mark is the index of the newest sample at or before
 * {@code now - maxAge}, which is at most the index applied at that moment (an index applied
 * between samples is counted from the next one: history is kept a little longer, never
 * shorter). With no such sample yet (a fresh start: the times of the entries applied before a
 * restart are unknown), the mark is 0 and nothing more is collected until one ages in.
 *
 * <p>Not thread-safe: its store calls it under its lock.
 */
final class AncientHistoryMark {
  private record Sample(long nanos, long index) {}

  private final HistoryRetention retention;
  private final long resolutionNanos;
  /** Oldest first; at most one sample at or before {@code now - maxAge} is kept. */
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();

  AncientHistoryMark(HistoryRetention retention) {
    this.retention = retention;
    this.resolutionNanos = Math.max(1, retention.maxAgeNanos() / 64);
  }

  /**
   * The mark now, given the index applied now: versions needed by no snapshot at or above it may
   * go. With no retention it is {@code applied}.
   */
  long mark(long applied) {
    if (retention.maxAgeNanos() == 0) {
      return applied;
    }
    long now = retention.nanoClock().getAsLong();
    Sample last = samples.peekLast();
    if (last == null || (now - last.nanos() >= resolutionNanos && applied > last.index())) {
      samples.addLast(new Sample(now, applied));
    }
    long cutoff = now - retention.maxAgeNanos();
    long mark = 0;
    // Drop samples superseded by a newer one that is itself at or before the cutoff.
    while (!samples.isEmpty() && samples.peekFirst().nanos() - cutoff <= 0) {
      Sample s = samples.pollFirst();
      mark = s.index();
      Sample next = samples.peekFirst();
      if (next == null || next.nanos() - cutoff > 0) {
        samples.addFirst(s);
        break;
      }
    }
    return mark;
  }
}
