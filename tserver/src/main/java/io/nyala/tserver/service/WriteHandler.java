package io.nyala.tserver.service;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.proto.tserver.PerRowErrorPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.ClientInvocationId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The Write RPC: validates the request against the tablet (size, schema, row encoding) before
 * anything is replicated, then submits one Raft entry under the client's id and sequence number
 * so that Ratis' retry cache makes a retried write exactly-once; a retry of a write applied
 * before the group last hibernated is answered from the replica's {@code AppliedWrites}.
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

  private final TabletManager tablets;
  private final Supplier<RaftServer> raft;
  private final long maxRequestBytes;
  private final MetricRegistry.Counter rowsWritten;
  private final MetricRegistry.Counter responsesDropped;
  /** Writes whose answer the fault already withheld once; null when the fault is off. */
  private final Set<String> droppedOnce;

  WriteHandler(TabletManager tablets, Supplier<RaftServer> raft, long maxRequestBytes,
      boolean faultDropResponseAfterCommit, MetricRegistry metrics) {
    this.tablets = tablets;
    this.raft = raft;
    this.maxRequestBytes = maxRequestBytes;
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
    ClientId clientId;
    long callId;
    if (req.getClientId().isEmpty()) {
      clientId = ClientId.randomId();
      callId = 0;
    } else {
      clientId = RaftIds.clientId(req.getClientId().toByteArray());
      callId = req.getSeqNo();
    }
    // Applied before the group last closed (hibernation): Ratis' retry cache closed with it,
    // the replica's record of results did not, so the retry gets the first outcome.
    byte[] earlier = req.getClientId().isEmpty() ? null
        : replica.appliedWrites().find(ClientInvocationId.valueOf(clientId, callId));
    CompletableFuture<WriteResponsePB> answer = earlier != null
        ? CompletableFuture.completedFuture(
            toResponse(parse(UnsafeByteOperations.unsafeWrap(earlier)), rows))
        : RaftCalls.write(server, replica.groupId(), clientId, callId, payload(req),
                req.getRepliedSeqNosList())
            .thenApply(reply -> toResponse(parse(reply), rows));
    if (droppedOnce == null || req.getClientId().isEmpty()) {
      // Without a client id a retry could not be told from a new write: nothing to prove.
      return answer;
    }
    String invocation = java.util.HexFormat.of().formatHex(req.getClientId().toByteArray())
        + "#" + callId;
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

  /**
   * The serialized {@link TabletOpPB} of a write, without copying its rows: protobuf merges
   * repeated occurrences of a message field, so the entry is the op without rows followed by a
   * hand-framed {@code write.row_operations.rows} field that wraps the request's own bytes. The
   * Raft log write is then the first copy of the rows after the RPC parsed them.
   */
  static ByteString payload(WriteRequestPB req) {
    RowOperationsPB rowOps = req.getRowOperations();
    byte[] head = TabletOpPB.newBuilder().setWrite(WriteOpPB.newBuilder()
        .setSchema(req.getSchema()).setRowOperations(rowOps.toBuilder().clearRows()))
        .build().toByteArray();
    com.google.protobuf.ByteString rows = rowOps.getRows();
    if (rows.isEmpty()) {
      return UnsafeByteOperations.unsafeWrap(head);
    }
    int rowsField = CodedOutputStream.computeTagSize(RowOperationsPB.ROWS_FIELD_NUMBER)
        + CodedOutputStream.computeUInt32SizeNoTag(rows.size()) + rows.size();
    int rowOpsField = CodedOutputStream.computeTagSize(WriteOpPB.ROW_OPERATIONS_FIELD_NUMBER)
        + CodedOutputStream.computeUInt32SizeNoTag(rowsField) + rowsField;
    byte[] frame = new byte[head.length + 3 * 10 + 3 * 5];
    System.arraycopy(head, 0, frame, 0, head.length);
    CodedOutputStream out = CodedOutputStream.newInstance(frame, head.length,
        frame.length - head.length);
    try {
      out.writeTag(TabletOpPB.WRITE_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(rowOpsField);
      out.writeTag(WriteOpPB.ROW_OPERATIONS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(rowsField);
      out.writeTag(RowOperationsPB.ROWS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(rows.size());
    } catch (java.io.IOException e) {
      throw new IllegalStateException("frame of " + frame.length + " bytes too small", e);
    }
    return UnsafeByteOperations.unsafeWrap(frame, 0, head.length + out.getTotalBytesWritten())
        .concat(UnsafeByteOperations.unsafeWrap(rows.asReadOnlyByteBuffer()));
  }

  private static WriteResultPB parse(ByteString reply) {
    try {
      return WriteResultPB.parseFrom(reply.asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("unreadable write result: %s", e.getMessage());
    }
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
