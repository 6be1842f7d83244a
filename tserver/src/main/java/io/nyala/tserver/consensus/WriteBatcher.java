package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.schema.Schema;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.ClientInvocationId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Puts the Write RPCs of one tablet that wait on its leader at the same time into one Raft
 * entry each time (docs/architecture.md, "Write path"), and answers each from its own result.
 *
 * <p>A write is submitted at once, on its caller's thread, when no other caller is submitting
 * and fewer than {@link Settings#maxEntriesInFlight} entries of this tablet await their apply:
 * a lone write waits for nothing. Otherwise it is queued, and the caller that is submitting, or
 * the completion of an entry in flight, submits everything queued as one entry, bounded by
 * bytes and by count; writes encoded against another write schema start the next entry.
 *
 * <p>Exactly-once: a write is admitted through the {@link RetryTable} only while this replica
 * is the ready leader (it applied every entry of earlier terms), and carries the term it was
 * admitted in; {@link WriteBatchApplier} applies it only in an entry of that term. Ratis' retry
 * cache sees the batch's own ids only, so it no longer answers client retries; the table does.
 *
 * <p>Threads: any caller; the queue and the counts are guarded by {@link #lock}, never held
 * while calling Ratis.
 */
public final class WriteBatcher {
  /**
   * Server-wide limits and parts.
   *
   * @param maxBatchBytes the serialized Write requests one entry may carry (the first always)
   * @param maxBatchWrites the writes one entry may carry
   * @param maxEntriesInFlight entries of one tablet submitted and not yet applied before
   *     newcomers queue
   * @param handoff where a drain started by an applied entry runs (not Ratis' apply thread)
   * @param writesPerEntry observes the writes of each entry submitted
   */
  public record Settings(long maxBatchBytes, int maxBatchWrites, int maxEntriesInFlight,
      Executor handoff, MetricRegistry.Histogram writesPerEntry) {}

  /** The tablet's Raft group as the batcher uses it: a seam, so batching is tested alone. */
  public interface Group {
    /**
     * The current term if this replica is the group's ready leader (it has applied its first
     * entry of the term, hence every entry of earlier terms); SERVICE_UNAVAILABLE otherwise.
     */
    long readyTerm();

    /**
     * Submits {@code payload} as one entry under Ratis' ids {@code client} and {@code callId};
     * completes with its reply once applied here. {@code answered}: earlier call ids answered.
     */
    CompletableFuture<ByteString> submit(ClientId client, long callId, ByteString payload,
        List<Long> answered);
  }

  /** The group {@code gid} of the local {@code server}, submitted to in process. */
  public static Group raftGroup(RaftServer server, RaftGroupId gid) {
    return new Group() {
      @Override
      public long readyTerm() {
        return WriteBatcher.readyTerm(server, gid);
      }

      @Override
      public CompletableFuture<ByteString> submit(ClientId client, long callId,
          ByteString payload, List<Long> answered) {
        return RaftCalls.write(server, gid, client, callId, payload, answered);
      }
    };
  }

  /** A write admitted as new, waiting for its entry. */
  private record Pending(WriteBatchFormat.Write write, WriteRequestPB req, Schema schema,
      long bytes, CompletableFuture<WriteResultPB> result) {}

  private final Settings settings;
  private final RetryTable retries;
  /** Ratis' retry cache sees this id and a call id per entry, told as answered next time. */
  private final ClientId batchClient = ClientId.randomId();
  private final AtomicLong nextCallId = new AtomicLong();
  private final Queue<Long> answeredCalls = new ConcurrentLinkedQueue<>();
  private final Object lock = new Object();
  /** Writes admitted and not yet submitted, oldest first. Guarded by {@link #lock}. */
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  /** Whether a thread is taking writes from the queue. Guarded by {@link #lock}. */
  private boolean draining;
  /** Entries submitted and not yet answered. Guarded by {@link #lock}. */
  private int entriesInFlight;

  public WriteBatcher(AppliedWrites applied, Settings settings) {
    this.settings = settings;
    this.retries = new RetryTable(applied);
  }

  /**
   * Writes {@code req}, already validated, whose rows are encoded against {@code writeSchema}
   * (the tablet's write schema cache's instance: writes share an entry only with the same
   * instance). Completes with its result, failed when it was not applied (SERVICE_UNAVAILABLE
   * while this leader is not ready).
   */
  public CompletableFuture<WriteResultPB> write(Group group, WriteRequestPB req,
      Schema writeSchema) {
    long term = group.readyTerm();
    CompletableFuture<WriteResultPB> result;
    if (req.getClientId().isEmpty()) {
      result = new CompletableFuture<>(); // a retry could not be told from a new write
    } else {
      RetryTable.Admission a = retries.admit(ClientInvocationId.valueOf(
          RaftIds.clientId(req.getClientId().toByteArray()), req.getSeqNo()));
      if (!a.isNew()) {
        return a.future();
      }
      result = a.future();
    }
    WriteBatchFormat.Write w = new WriteBatchFormat.Write(req.getClientId(), req.getSeqNo(),
        term, req.getRowOperations(), req.getRepliedSeqNosList());
    synchronized (lock) {
      queue.add(new Pending(w, req, writeSchema, req.getSerializedSize(), result));
      if (draining) {
        return result;
      }
      draining = true;
    }
    drain(group);
    return result;
  }

  /**
   * The current term, if this replica is its ready leader: it has applied its first entry of
   * the term, hence every entry of earlier terms, so their writes' results are recorded. Read
   * twice around the readiness so that both belong to one term.
   */
  private static long readyTerm(RaftServer server, RaftGroupId gid) {
    DivisionInfo info;
    try {
      info = server.getDivision(gid).getInfo();
    } catch (IOException e) {
      throw NyalaException.unavailable("tablet %s has no running Raft group here: %s",
          RaftIds.tabletId(gid), e.getMessage());
    }
    long term = info.getCurrentTerm();
    if (!info.isLeaderReady() || info.getCurrentTerm() != term) {
      throw NyalaException.unavailable("tablet %s: leader not ready in term %d (it has not "
          + "applied its predecessors' entries yet); retry", RaftIds.tabletId(gid), term);
    }
    return term;
  }

  /** Submits queued writes as entries until the queue is empty or enough entries are out. */
  private void drain(Group group) {
    while (true) {
      List<Pending> batch;
      synchronized (lock) {
        if (queue.isEmpty() || entriesInFlight >= settings.maxEntriesInFlight()) {
          draining = false;
          return;
        }
        batch = takeLocked();
        entriesInFlight++;
      }
      submit(group, batch);
    }
  }

  /** The oldest queued write and those after it that fit its entry. */
  private List<Pending> takeLocked() {
    Pending head = queue.poll();
    List<Pending> batch = new ArrayList<>();
    batch.add(head);
    long bytes = head.bytes();
    for (Pending p = queue.peek(); p != null && batch.size() < settings.maxBatchWrites()
        && p.schema() == head.schema() && bytes + p.bytes() <= settings.maxBatchBytes();
        p = queue.peek()) {
      queue.poll();
      batch.add(p);
      bytes += p.bytes();
    }
    return batch;
  }

  private void submit(Group group, List<Pending> batch) {
    long callId = nextCallId.getAndIncrement();
    CompletableFuture<ByteString> reply;
    try {
      List<WriteBatchFormat.Write> writes = new ArrayList<>(batch.size());
      batch.forEach(p -> writes.add(p.write()));
      ByteString payload = WriteBatchFormat.payload(batch.get(0).req().getSchema(), writes);
      settings.writesPerEntry().observe(batch.size());
      reply = group.submit(batchClient, callId, payload, answered());
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete((r, t) -> {
      answeredCalls.add(callId);
      entryDone(group);
      answer(batch, r, t);
    });
  }

  /** The batch call ids answered since the last entry, for Ratis to drop from its cache. */
  private List<Long> answered() {
    List<Long> out = new ArrayList<>();
    for (Long id = answeredCalls.poll(); id != null; id = answeredCalls.poll()) {
      out.add(id);
    }
    return out;
  }

  /** An entry was answered: writes queued behind the limit go now, off the apply thread. */
  private void entryDone(Group group) {
    synchronized (lock) {
      entriesInFlight--;
      if (draining || queue.isEmpty()) {
        return;
      }
      draining = true;
    }
    try {
      settings.handoff().execute(() -> drain(group));
    } catch (RejectedExecutionException e) {
      drain(group); // the server is stopping: Ratis refuses them at once
    }
  }

  private static void answer(List<Pending> batch, ByteString reply, Throwable t) {
    List<WriteResultPB> results = null;
    if (t == null) {
      try {
        results = WriteBatchFormat.results(reply);
        if (results.size() != batch.size()) {
          t = NyalaException.corruption("write batch of %d writes answered with %d results",
              batch.size(), results.size());
        }
      } catch (RuntimeException e) {
        t = e;
      }
    }
    for (int i = 0; i < batch.size(); i++) {
      CompletableFuture<WriteResultPB> f = batch.get(i).result();
      if (t != null) {
        f.completeExceptionally(t);
      } else if (results.get(i).hasError()) {
        f.completeExceptionally(NyalaException.fromPb(results.get(i).getError()));
      } else {
        f.complete(results.get(i));
      }
    }
  }

  /** Calls queued or submitted here and not yet answered (for tests and pages). */
  public int writesInFlight() {
    return retries.inFlight();
  }
}
