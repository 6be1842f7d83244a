package io.nyala.tserver.consensus;

import java.util.TreeMap;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * The last (term, index) of the copy images a replica serves and has not closed yet. While any
 * is open, the state machine's snapshots report the lowest, so that Ratis keeps the log after it
 * for the destination to replay. Thread-safe: one monitor guards the counts.
 */
final class ImagePins {
  /** Pinned index → open images at it and the term of that index; guarded by this monitor. */
  private final TreeMap<Long, long[]> pins = new TreeMap<>();

  synchronized void pin(long index, long term) {
    pins.computeIfAbsent(index, k -> new long[] {0, term})[0]++;
  }

  synchronized void unpin(long index) {
    pins.computeIfPresent(index, (k, n) -> n[0] <= 1 ? null : new long[] {n[0] - 1, n[1]});
  }

  /** The lowest pinned (term, index), or null if no image is open. */
  synchronized TermIndex lowest() {
    return pins.isEmpty() ? null
        : TermIndex.valueOf(pins.firstEntry().getValue()[1], pins.firstKey());
  }

  synchronized int count() {
    return pins.values().stream().mapToInt(n -> (int) n[0]).sum();
  }
}
