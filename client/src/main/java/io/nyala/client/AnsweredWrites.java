package io.nyala.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Per tablet, the sequence numbers of this client's writes that were answered and so will never
 * be retried, until the next request to that tablet reports them ({@code replied_seq_nos}): the
 * leader then drops them from its retry cache instead of holding each for its whole expiry.
 * Thread-safe.
 */
final class AnsweredWrites {
  /** At most this many are reported per request; the rest wait for the next one. */
  static final int MAX_PER_REQUEST = 1024;

  private final Map<String, Queue<Long>> byTablet = new ConcurrentHashMap<>();

  void answered(String tabletId, long seqNo) {
    byTablet.computeIfAbsent(tabletId, k -> new ConcurrentLinkedQueue<>()).add(seqNo);
  }

  /** Removes and returns what the next request to {@code tabletId} reports. */
  List<Long> take(String tabletId) {
    Queue<Long> q = byTablet.get(tabletId);
    List<Long> out = new ArrayList<>();
    if (q == null) {
      return out;
    }
    while (out.size() < MAX_PER_REQUEST) {
      Long s = q.poll();
      if (s == null) {
        break;
      }
      out.add(s);
    }
    return out;
  }
}
