package io.nyala.tserver.service;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.proto.tserver.PerRowErrorPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.consensus.WriteBatcher;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.ratis.server.RaftServer;

/**
 * The Write RPC: validates the request against the tablet (size, schema, row encoding) before
 * anything is replicated, then hands it to the replica's {@link WriteBatcher}, which puts the
 * writes that wait on the leader together into one Raft entry and answers each from its own
 * result; a retry (same client id and sequence number) is answered from the write in flight or
 * from the replica's {@code AppliedWrites}, never written twice (docs/architecture.md, "Write
 * path").
 *
 * <p>With the test-only fault {@code --fault_drop_write_response_after_commit} it withholds the
 * first answer to each committed (client id, sequence number), leaving the client's call to time
 * out after the write was applied: the case exactly-once exists for.
 */
final class WriteHandler {
  /** How long after the caller's deadline a withheld answer is dropped (the call is gone). */
  private static final long WITHHELD_GRACE_NANOS = 1_000_000_000L;
  /** How many answered-once writes the fault remembers; older ones would be dropped again. */
  private static final int FAULT_MEMORY = 100_000;
  /** Writes one entry may carry, besides the bytes bound. */
  static final int MAX_BATCH_WRITES = 1000;

  private final TabletManager tablets;
  private final Supplier<RaftServer> raft;
  private final long maxRequestBytes;
  private final WriteBatcher.Settings batching;
  private final MetricRegistry.Counter rowsWritten;
  private final MetricRegistry.Counter responsesDropped;
  /** Writes whose answer the fault already withheld once; null when the fault is off. */
  private final Set<String> droppedOnce;

  WriteHandler(TabletManager tablets, Supplier<RaftServer> raft, long maxRequestBytes,
      int maxEntriesInFlight, Executor batchHandoff, boolean faultDropResponseAfterCommit,
      MetricRegistry metrics) {
    this.tablets = tablets;
    this.raft = raft;
    this.maxRequestBytes = maxRequestBytes;
    this.batching = new WriteBatcher.Settings(maxRequestBytes, MAX_BATCH_WRITES,
        maxEntriesInFlight, batchHandoff, metrics.histogram("writes_per_entry",
            "Write RPCs carried by each Raft entry this server submitted as leader",
            1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024));
    this.rowsWritten = metrics.counter("rows_written_total",
        "Rows written successfully through Write RPCs served by this server as leader");
    this.responsesDropped = metrics.counter("fault_write_responses_dropped_total",
        "Answers to committed writes withheld by --fault_drop_write_response_after_commit");
    this.droppedOnce = !faultDropResponseAfterCommit ? null
        : Collections.synchronizedSet(Collections.newSetFromMap(
            new LinkedHashMap<String, Boolean>() {
              @Override
              protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > FAULT_MEMORY;
              }
            }));
  }

  CompletableFuture<WriteResponsePB> write(WriteRequestPB req) {
    int size = req.getSerializedSize();
    if (size > maxRequestBytes) {
      throw NyalaException.invalidArgument(
          "write request of %d bytes exceeds the limit of %d bytes (--max_write_request_bytes);"
              + " split the batch", size, maxRequestBytes);
    }
    long deadlineNanos = CallerDeadline.nanos();
    TabletReplica replica = tablets.use(req.getTabletId(), deadlineNanos);
    return replica.serve(() -> write(replica, req, deadlineNanos));
  }

  private CompletableFuture<WriteResponsePB> write(TabletReplica replica, WriteRequestPB req,
      long deadlineNanos) {
    RaftServer server = raft.get();
    replica.checkLeader(server);
    Schema writeSchema = replica.writeSchemas().resolve(req.getSchema(), replica.schema());
    int rows = RowOperations.decode(writeSchema, req.getRowOperations(),
        StatusCode.INVALID_ARGUMENT).size();
    CompletableFuture<WriteResponsePB> answer = replica.writeBatcher(batching)
        .write(WriteBatcher.raftGroup(server, replica.groupId()), req, writeSchema)
        .thenApply(result -> toResponse(result, rows));
    if (droppedOnce == null || req.getClientId().isEmpty()) {
      // Without a client id a retry could not be told from a new write: nothing to prove.
      return answer;
    }
    String invocation = java.util.HexFormat.of().formatHex(req.getClientId().toByteArray())
        + "#" + req.getSeqNo();
    return answer.thenCompose(resp -> {
      if (!droppedOnce.add(invocation)) {
        return CompletableFuture.completedFuture(resp);
      }
      responsesDropped.add(1);
      // Withheld until past the caller's deadline, when gRPC has cancelled the call (so the
      // client never sees an answer): then it ends, so the write no longer counts as in
      // flight and the replica may hibernate (docs/dense-nodes.md) as after a lost answer.
      long left = Math.max(0, deadlineNanos - System.nanoTime()) + WITHHELD_GRACE_NANOS;
      return new CompletableFuture<WriteResponsePB>().orTimeout(left,
          java.util.concurrent.TimeUnit.NANOSECONDS);
    });
  }

  private WriteResponsePB toResponse(WriteResultPB result, int rows) {
    WriteResponsePB.Builder b = WriteResponsePB.newBuilder().setWriteIndex(result.getWriteIndex());
    for (PerRowResultPB r : result.getPerRowErrorsList()) {
      b.addPerRowErrors(PerRowErrorPB.newBuilder()
          .setRowIndex(r.getRowIndex()).setError(r.getError()));
    }
    rowsWritten.add(rows - result.getPerRowErrorsCount());
    return b.build();
  }
}
