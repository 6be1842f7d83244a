package io.nyala.tserver.consensus;

import java.util.TreeMap;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * The last (term, index) of the copy images a replica serves and has not closed yet. While any
 * is open, the state machine's snapshots report the lowest, so that Ratis keeps the log after it
 * for the destination to replay. Thread-safe: one monitor guards the counts.
 */
final class ImagePins {
  /** How many open images pin one index, and the term of that index. */
  private record Pin(int images, long term) {}

  /** Pinned index → its pin; guarded by this monitor. */
  private final TreeMap<Long, Pin> pins = new TreeMap<>();

  synchronized void pin(long index, long term) {
    pins.merge(index, new Pin(1, term), (old, one) -> new Pin(old.images() + 1, old.term()));
  }

  synchronized void unpin(long index) {
    pins.computeIfPresent(index, (k, p) -> p.images() <= 1 ? null
        : new Pin(p.images() - 1, p.term()));
  }

  /** The lowest pinned (term, index), or null if no image is open. */
  synchronized TermIndex lowest() {
    return pins.isEmpty() ? null
        : TermIndex.valueOf(pins.firstEntry().getValue().term(), pins.firstKey());
  }

  synchronized int count() {
    return pins.values().stream().mapToInt(Pin::images).sum();
  }
}
