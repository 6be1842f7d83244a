package io.nyala.tserver.consensus;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.metadata.AppliedWritePB;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.ClientInvocationId;

/**
 * The results of the writes one replica applied recently, by the client id and sequence number
 * they were submitted under: the replicated retry table that makes a retried write
 * exactly-once (docs/architecture.md, "Write path", and docs/dense-nodes.md, "Exactly-once
 * across hibernation"). The leader answers a retry found here instead of writing it again
 * ({@link WriteBatcher}); every replica fills its own on apply, so whichever replica leads next
 * has the same results once it has applied its predecessors' entries.
 *
 * <p>Owned by the replica, not by its state machine, so it outlives the group. A result is
 * dropped once older than the retry window ({@link #expire}, which is also Ratis' retry cache's
 * expiry) or when the client said it has the answer and will not retry ({@link #forget}, applied
 * from the entry on every replica); never earlier, so that a retry within the window is always
 * found. What it holds is therefore bounded by the writes whose answers their clients have not
 * acknowledged within one window (about 100 bytes each).
 *
 * <p>A hibernating replica persists what it holds with its hibernated state ({@link #toPb}) and
 * a start restores it ({@link #restore}): a cold group replays no log at start, and the log
 * replay is what rebuilds these results after a restart of an awake group.
 */
public final class AppliedWrites {
  /** A result and when it was recorded (System.nanoTime). */
  private record Applied(byte[] result, long atNanos) {}

  private final Map<ClientInvocationId, Applied> results = new ConcurrentHashMap<>();

  /** An entry submitted as {@code call} was applied with {@code result}. On the apply thread. */
  public void record(ClientInvocationId call, byte[] result, long nowNanos) {
    // A replayed call (the log after a restart) replaces the older record, and its time.
    results.put(call, new Applied(result, nowNanos));
  }

  /** The result {@code call} was applied with, if it was applied here and not yet forgotten. */
  public byte[] find(ClientInvocationId call) {
    Applied a = results.get(call);
    return a == null ? null : a.result();
  }

  /** Forgets {@code call}: its client has the answer and will not retry it. On apply. */
  public void forget(ClientInvocationId call) {
    results.remove(call);
  }

  /** Forgets the results applied at or before {@code cutoffNanos}. */
  public void expire(long cutoffNanos) {
    if (!results.isEmpty()) {
      results.values().removeIf(a -> a.atNanos() - cutoffNanos <= 0);
    }
  }

  /** What this holds at {@code nowNanos}, each result with its age, to be persisted. */
  public List<AppliedWritePB> toPb(long nowNanos) {
    List<AppliedWritePB> out = new ArrayList<>();
    results.forEach((call, a) -> out.add(AppliedWritePB.newBuilder()
        .setClientId(ByteString.copyFrom(call.getClientId().toByteString().toByteArray()))
        .setCallId(call.getLongId()).setResult(ByteString.copyFrom(a.result()))
        .setAgeMs(TimeUnit.NANOSECONDS.toMillis(Math.max(0, nowNanos - a.atNanos())))
        .build()));
    return out;
  }

  /**
   * Restores results persisted by {@link #toPb}, as old as they were then: the time the replica
   * spent closed is not counted, so each is kept longer than its window, never shorter.
   */
  public void restore(List<AppliedWritePB> persisted, long nowNanos) {
    for (AppliedWritePB w : persisted) {
      ClientId client = ClientId.valueOf(org.apache.ratis.thirdparty.com.google.protobuf
          .ByteString.copyFrom(w.getClientId().toByteArray()));
      results.putIfAbsent(ClientInvocationId.valueOf(client, w.getCallId()),
          new Applied(w.getResult().toByteArray(), nowNanos - TimeUnit.MILLISECONDS.toNanos(
              w.getAgeMs())));
    }
  }

  public int size() {
    return results.size();
  }
}
