package io.nyala.tserver.consensus;

import java.util.TreeMap;

/**
 * The last indexes of the copy images a replica serves and has not closed yet. While any is
 * open, the state machine's snapshots report the lowest, so that Ratis keeps the log after it
 * for the destination to replay. Thread-safe: one monitor guards the counts.
 */
final class ImagePins {
  /** Pinned index → open images at it; guarded by this object's monitor. */
  private final TreeMap<Long, Integer> pins = new TreeMap<>();

  synchronized void pin(long index) {
    pins.merge(index, 1, Integer::sum);
  }

  synchronized void unpin(long index) {
    pins.computeIfPresent(index, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** The lowest pinned index, or -1 if no image is open. */
  synchronized long lowest() {
    return pins.isEmpty() ? -1 : pins.firstKey();
  }

  synchronized int count() {
    return pins.values().stream().mapToInt(Integer::intValue).sum();
  }
}
