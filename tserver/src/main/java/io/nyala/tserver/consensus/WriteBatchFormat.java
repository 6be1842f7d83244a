package io.nyala.tserver.consensus;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.metadata.BatchedWritePB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteBatchOpPB;
import io.nyala.common.proto.metadata.WriteBatchResultPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The bytes of a batched write entry and of its reply (docs/architecture.md, "Write path").
 *
 * <p>An entry is a {@link TabletOpPB} whose {@code write_batch} is framed by hand, without
 * copying rows: protobuf merges repeated occurrences of a message field, so the entry is the op
 * with the batch's schema followed, per write, by one more {@code write_batch} occurrence
 * holding that write, whose {@code row_operations.rows} wraps the Write request's own bytes.
 * The Raft log write is then the first copy of the rows after the RPC parsed them. A reply is a
 * {@link WriteBatchResultPB} framed from each write's serialized {@link WriteResultPB} (the
 * bytes the replica also records for retries).
 */
public final class WriteBatchFormat {
  /** Room for the tags and lengths written before a write or its rows (5 of each at most). */
  private static final int PREFIX_BYTES = 30;

  private WriteBatchFormat() {}

  /** One write of a batch as the entry carries it. */
  public record Write(com.google.protobuf.ByteString clientId, long seqNo, long checkedTerm,
      RowOperationsPB rowOperations, List<Long> repliedSeqNos) {}

  /** The serialized {@link TabletOpPB} of {@code writes}, all encoded against {@code schema}. */
  public static ByteString payload(SchemaPB schema, List<Write> writes) {
    List<ByteString> pieces = new ArrayList<>(1 + 2 * writes.size());
    pieces.add(UnsafeByteOperations.unsafeWrap(TabletOpPB.newBuilder()
        .setWriteBatch(WriteBatchOpPB.newBuilder().setSchema(schema)).build().toByteArray()));
    for (Write w : writes) {
      appendWrite(pieces, w);
    }
    return ByteString.copyFrom(pieces);
  }

  private static void appendWrite(List<ByteString> pieces, Write w) {
    RowOperationsPB ops = w.rowOperations();
    byte[] head = BatchedWritePB.newBuilder().setClientId(w.clientId()).setSeqNo(w.seqNo())
        .setCheckedTerm(w.checkedTerm()).addAllRepliedSeqNos(w.repliedSeqNos())
        .setRowOperations(ops.toBuilder().clearRows()).build().toByteArray();
    com.google.protobuf.ByteString rows = ops.getRows();
    int rowsField = rows.isEmpty() ? 0 : lengthDelimited(RowOperationsPB.ROWS_FIELD_NUMBER,
        rows.size());
    int rowOpsField = rows.isEmpty() ? 0
        : lengthDelimited(BatchedWritePB.ROW_OPERATIONS_FIELD_NUMBER, rowsField);
    int write = head.length + rowOpsField;
    int writesField = lengthDelimited(WriteBatchOpPB.WRITES_FIELD_NUMBER, write);
    byte[] frame = new byte[head.length + PREFIX_BYTES];
    CodedOutputStream out = CodedOutputStream.newInstance(frame);
    try {
      out.writeTag(TabletOpPB.WRITE_BATCH_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(writesField);
      out.writeTag(WriteBatchOpPB.WRITES_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(write);
      out.writeRawBytes(head);
      if (!rows.isEmpty()) {
        out.writeTag(BatchedWritePB.ROW_OPERATIONS_FIELD_NUMBER,
            WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(rowsField);
        out.writeTag(RowOperationsPB.ROWS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(rows.size());
      }
    } catch (IOException e) {
      throw new IllegalStateException("frame of " + frame.length + " bytes too small", e);
    }
    pieces.add(UnsafeByteOperations.unsafeWrap(frame, 0, out.getTotalBytesWritten()));
    if (!rows.isEmpty()) {
      pieces.add(UnsafeByteOperations.unsafeWrap(rows.asReadOnlyByteBuffer()));
    }
  }

  /** The size of a length-delimited field {@code field} whose content is {@code bytes} long. */
  private static int lengthDelimited(int field, int bytes) {
    return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(
        bytes) + bytes;
  }

  /** A {@link WriteBatchResultPB} of the serialized results, in order. */
  static byte[] reply(List<byte[]> results) {
    int size = 0;
    for (byte[] r : results) {
      size += lengthDelimited(WriteBatchResultPB.RESULTS_FIELD_NUMBER, r.length);
    }
    byte[] out = new byte[size];
    CodedOutputStream o = CodedOutputStream.newInstance(out);
    try {
      for (byte[] r : results) {
        o.writeByteArray(WriteBatchResultPB.RESULTS_FIELD_NUMBER, r);
      }
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("reply of " + size + " bytes mis-sized", e);
    }
    return out;
  }

  /** The results in a batch entry's reply; CORRUPTION if it cannot be parsed. */
  public static List<WriteResultPB> results(ByteString reply) {
    try {
      return WriteBatchResultPB.parseFrom(reply.asReadOnlyByteBuffer()).getResultsList();
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("unreadable write batch result of %d bytes: %s",
          reply.size(), e.getMessage());
    }
  }

  /** One serialized {@link WriteResultPB}; CORRUPTION if it cannot be parsed. */
  public static WriteResultPB result(byte[] bytes) {
    try {
      return WriteResultPB.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("unreadable write result of %d bytes: %s", bytes.length,
          e.getMessage());
    }
  }
}
