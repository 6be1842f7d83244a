package io.nyala.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per tablet, the highest Raft index at which this client saw one of its writes applied: what a
 * READ_YOUR_WRITES scan asks a replica to have applied before it reads (docs/architecture.md,
 * "Consistent reads"). Only grows. Thread-safe.
 */
final class WritePositions {
  private final Map<String, Long> byTablet = new ConcurrentHashMap<>();

  /** Records that a write to {@code tabletId} was applied at {@code index} (0 = not known). */
  void saw(String tabletId, long index) {
    if (index > 0) {
      byTablet.merge(tabletId, index, Math::max);
    }
  }

  /** @return the highest write index seen on the tablet, 0 if none */
  long of(String tabletId) {
    return byTablet.getOrDefault(tabletId, 0L);
  }
}
