package io.nyala.client;

import com.google.protobuf.UnsafeByteOperations;
import io.nyala.client.locations.RemoteTablet;
import io.nyala.client.locations.TableLocations;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.proto.tserver.PerRowErrorPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.ByteWriter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One write request: some operations of one tablet, already encoded, with the sequence number
 * it was given when it was formed. The request is built once and re-sent as-is on every retry,
 * so the tablet sees one (client id, seq_no) per batch and applies it at most once.
 */
final class WriteBatch {
  private static final Logger LOG = LoggerFactory.getLogger(WriteBatch.class);

  private final AsyncNyalaClient client;
  private final NyalaTable table;
  private final RemoteTablet tablet;
  /** Positions, in the flush's operation list, of this request's rows, in row order. */
  private final List<Integer> indexes;
  private final WriteRequestPB request;

  /**
   * A batch.
   *
   * @param client the client
   * @param table the table of every row
   * @param tablet the tablet every row maps to
   * @param indexes the rows' positions in the flush, in the order they were encoded
   * @param rows the encoded rows; owned by the batch from now on
   */
  WriteBatch(AsyncNyalaClient client, NyalaTable table, RemoteTablet tablet,
      List<Integer> indexes, ByteWriter rows) {
    this.client = client;
    this.table = table;
    this.tablet = tablet;
    this.indexes = List.copyOf(indexes);
    this.request = WriteRequestPB.newBuilder()
        .setTabletId(tablet.id())
        .setSchema(table.schemaPb())
        .setRowOperations(RowOperationsPB.newBuilder()
            // The writer is not touched again, so its array can back the request.
            .setRows(UnsafeByteOperations.unsafeWrap(rows.array(), 0, rows.size()))
            .setCount(indexes.size()))
        .setClientId(client.clientIdBytes())
        .setSeqNo(client.nextSeqNo())
        .addAllRepliedSeqNos(client.answeredWrites().take(tablet.id()))
        .build();
  }

  /** @return the request as it is sent (every attempt sends this same message) */
  WriteRequestPB request() {
    return request;
  }

  /**
   * Sends the batch to the tablet's leader, retrying within the deadline, and records an
   * {@link OperationResponse} for each of its rows. Never completes exceptionally: a failure of
   * the whole request becomes every row's error.
   *
   * @param ops the flush's operations
   * @param out where to put each row's response, by position in the flush
   * @param deadline when to give up
   * @return completes when every row has its response
   */
  CompletableFuture<Void> send(List<Operation> ops, OperationResponse[] out, Deadline deadline) {
    String what = String.format("write of %d rows to tablet %s of table '%s'",
        indexes.size(), tablet.id(), table.getName());
    TableLocations locations = client.locations(table);
    Transport transport = client.transport();
    return client.tabletCaller().<WriteResponsePB>call(what, locations,
            tablet.partitionKeyStart(), (t, replica, d) -> {
              if (!t.id().equals(tablet.id())) {
                // Tablets are never split or merged, so the same key range must keep its id.
                return CompletableFuture.failedFuture(NyalaException.illegalState(
                    "partition of tablet %s of table '%s' is now owned by tablet %s",
                    tablet.id(), table.getName(), t.id()));
              }
              client.tabletCaller().counters().writeSent(request.getSerializedSize());
              return transport.<WriteResponsePB>call(replica.rpcAddress(),
                  obs -> transport.tserver(replica.rpcAddress(), d).write(request, obs));
            }, WriteResponsePB::getError, deadline)
        .handle((served, err) -> {
          if (err != null) {
            failAll(ops, out, NyalaException.from(err));
          } else {
            // Answered: this seq_no is never sent again, the leader may forget its outcome.
            client.answeredWrites().answered(tablet.id(), request.getSeqNo());
            client.writePositions().saw(tablet.id(), served.response().getWriteIndex());
            record(ops, out, served.response());
          }
          return null;
        });
  }

  private void failAll(List<Operation> ops, OperationResponse[] out, NyalaException e) {
    ErrorStatus status = ErrorStatus.of(e);
    client.tabletCaller().counters().tabletWritten(tablet.id(), indexes.size(), indexes.size());
    for (int i : indexes) {
      out[i] = new OperationResponse(ops.get(i), new RowError(ops.get(i), status, tablet.id()), 0);
    }
  }

  private void record(List<Operation> ops, OperationResponse[] out, WriteResponsePB resp) {
    RowError[] errors = new RowError[indexes.size()];
    for (PerRowErrorPB e : resp.getPerRowErrorsList()) {
      int row = e.getRowIndex();
      if (row < 0 || row >= errors.length) {
        // The message may quote row values, which logs must not show.
        LOG.warn("tablet {} reported a {} error for row {} of a {}-row write; ignored",
            tablet.id(), e.getError().getCode(), row, errors.length);
        continue;
      }
      Operation op = ops.get(indexes.get(row));
      errors[row] = new RowError(op, ErrorStatus.of(NyalaException.fromPb(e.getError())),
          tablet.id());
    }
    int failed = 0;
    for (int k = 0; k < errors.length; k++) {
      int i = indexes.get(k);
      out[i] = new OperationResponse(ops.get(i), errors[k], resp.getWriteIndex());
      failed += errors[k] != null ? 1 : 0;
    }
    client.tabletCaller().counters().tabletWritten(tablet.id(), errors.length, failed);
  }
}
