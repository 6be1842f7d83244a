package io.nyala.tserver.consensus;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.protocol.ClientInvocationId;

/**
 * The results of the entries one replica applied recently, by the client id and sequence number
 * they were submitted under: what lets a client's retry of a write be answered, not applied
 * again, after the replica's Raft group closed and reopened (hibernation and wake,
 * docs/dense-nodes.md, "Exactly-once across hibernation"). While the group is open Ratis' retry
 * cache does that; it dies with the group. Every replica fills its own on apply, so whichever
 * replica leads after a wake has the same results.
 *
 * <p>Owned by the replica, not by its state machine, so it outlives the group. Entries are
 * dropped once older than the retry window ({@link #expire}) or, beyond {@link #MAX_ENTRIES},
 * oldest first; {@link #forgotEarlyUntil} then says until when a retry of a forgotten one could
 * still come, and the replica stays awake until that time (as it did before this existed).
 */
public final class AppliedWrites {
  /** Results kept at most per replica (the retry cache holds as many for the same window). */
  static final int MAX_ENTRIES = 50_000;

  /** Compared by identity on purpose: a replayed call's newer entry replaces the older. */
  private static final class Applied {
    final ClientInvocationId call;
    final byte[] result;
    final long atNanos;

    Applied(ClientInvocationId call, byte[] result, long atNanos) {
      this.call = call;
      this.result = result;
      this.atNanos = atNanos;
    }
  }

  private final Map<ClientInvocationId, Applied> results = new ConcurrentHashMap<>();
  /** The entries in apply order, for expiry; a replayed call's older entry forgets nothing. */
  private final Queue<Applied> order = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final int maxEntries;
  /** When the newest entry dropped before its time was applied; MIN_VALUE if none was. */
  private volatile long droppedEarlyAtNanos = Long.MIN_VALUE;

  public AppliedWrites() {
    this(MAX_ENTRIES);
  }

  AppliedWrites(int maxEntries) {
    this.maxEntries = maxEntries;
  }

  /** An entry submitted as {@code call} was applied with {@code result}. On the apply thread. */
  public void record(ClientInvocationId call, byte[] result, long nowNanos) {
    Applied a = new Applied(call, result, nowNanos);
    results.put(call, a);
    order.add(a);
    if (queued.incrementAndGet() > maxEntries) {
      Applied oldest = order.poll();
      if (oldest != null) {
        queued.decrementAndGet();
        results.remove(oldest.call, oldest);
        droppedEarlyAtNanos = oldest.atNanos;
      }
    }
  }

  /** The result {@code call} was applied with, if it was applied here and not yet forgotten. */
  public byte[] find(ClientInvocationId call) {
    Applied a = results.get(call);
    return a == null ? null : a.result;
  }

  /** Forgets the results applied at or before {@code cutoffNanos}. */
  public void expire(long cutoffNanos) {
    for (Applied a = order.peek(); a != null && a.atNanos - cutoffNanos <= 0;
        a = order.peek()) {
      if (order.remove(a)) {
        queued.decrementAndGet();
        results.remove(a.call, a);
      }
    }
  }

  /**
   * Until when (System.nanoTime) a client may still retry a write whose result was dropped
   * before the retry window passed, given the window; MIN_VALUE if none was dropped so.
   */
  public long forgotEarlyUntil(long windowNanos) {
    long at = droppedEarlyAtNanos;
    return at == Long.MIN_VALUE ? Long.MIN_VALUE : at + windowNanos;
  }

  public int size() {
    return results.size();
  }
}
