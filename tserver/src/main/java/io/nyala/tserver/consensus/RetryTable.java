package io.nyala.tserver.consensus;

import io.nyala.common.proto.metadata.WriteResultPB;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.protocol.ClientInvocationId;

/**
 * The leader's answer to "was this client call written already?" (docs/architecture.md, "Write
 * path", "Exactly-once"): the calls it has queued or submitted and not yet answered, by client
 * id and sequence number, in front of the replica's {@link AppliedWrites}. A retry of a call in
 * flight gets the original's future; a retry of an applied one its recorded result; only a call
 * in neither is admitted as new.
 *
 * <p>A call leaves the in-flight map only when its future completes, which for a written call is
 * after its entry was applied and its result recorded (the apply thread records before Ratis
 * answers the entry). Admission claims the call in the map before it reads the record, so a
 * retry can never fall between the two. Callers must only admit while the leader is ready
 * (see {@link WriteBatcher}): before that the record may lack predecessors' entries.
 */
final class RetryTable {
  /** What admitting a call gave: the future that answers it, and whether it is to be written. */
  record Admission(CompletableFuture<WriteResultPB> future, boolean isNew) {}

  private final Map<ClientInvocationId, CompletableFuture<WriteResultPB>> inFlight =
      new ConcurrentHashMap<>();
  private final AppliedWrites applied;

  RetryTable(AppliedWrites applied) {
    this.applied = applied;
  }

  /** Admits {@code call}: new (write it, then complete the future), in flight, or applied. */
  Admission admit(ClientInvocationId call) {
    CompletableFuture<WriteResultPB> mine = new CompletableFuture<>();
    CompletableFuture<WriteResultPB> earlier = inFlight.putIfAbsent(call, mine);
    if (earlier != null) {
      return new Admission(earlier, false);
    }
    byte[] result = applied.find(call);
    if (result != null) {
      inFlight.remove(call, mine);
      mine.complete(WriteBatchFormat.result(result));
      return new Admission(mine, false);
    }
    mine.whenComplete((r, t) -> inFlight.remove(call, mine));
    return new Admission(mine, true);
  }

  /** Calls queued or submitted and not yet answered. */
  int inFlight() {
    return inFlight.size();
  }
}
