package io.nyala.tserver.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.metadata.AlterSchemaOpPB;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.row.RowOperations;
import io.nyala.common.rpc.AliasingMarshaller;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.LogPayloads;
import io.nyala.tserver.tablet.RowOpError;
import io.nyala.tserver.tablet.TabletStore;
import io.nyala.tserver.tablet.WriteSchemaCache;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.ClientInvocationId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one committed Raft entry to the store (docs/architecture.md, "Write path", step
 * "Apply"): opens its payload, decodes the {@link TabletOpPB} and applies its row operations or
 * schema change with the entry's index as MVCC timestamp. Deterministic: every replica gets the
 * same result, per-row errors included. Called on the apply thread only.
 */
final class EntryApplier {
  private static final Logger LOG = LoggerFactory.getLogger(EntryApplier.class);

  private final String tabletId;
  /** Opens payloads sealed on the leader. */
  private final LogPayloads payloads;
  private final TabletStateMachine.Listener listener;
  /** Write schemas already checked against the store's schema. */
  private final WriteSchemaCache writeSchemas = new WriteSchemaCache();
  /** Where each applied entry's result is kept for retries after a wake. */
  private final AppliedWrites applied;
  /** Entries of several clients' writes. */
  private final WriteBatchApplier batches;

  EntryApplier(String tabletId, LogPayloads payloads, TabletStateMachine.Listener listener,
      AppliedWrites applied) {
    this.tabletId = tabletId;
    this.payloads = payloads;
    this.listener = listener;
    this.applied = applied;
    this.batches = new WriteBatchApplier(tabletId, listener, writeSchemas, applied);
  }

  /**
   * Applies a committed entry and returns its reply: for a batch of writes a
   * {@code WriteBatchResultPB}, each write's result recorded under its client's ids (see
   * {@link WriteBatchApplier}); for any other entry its serialized {@link WriteResultPB},
   * recorded under the client call it was submitted as (a single write before batching).
   */
  byte[] apply(TabletStore store, LogEntryProto entry) {
    StateMachineLogEntryProto sm = entry.getStateMachineLogEntry();
    // A fresh array (flattened, or decrypted): the parsed rows alias it instead of a copy.
    TabletOpPB op = decode(entry.getIndex(), sm.getLogData().toByteArray());
    if (op.hasWriteBatch()) {
      return batches.apply(store, op.getWriteBatch(), entry.getIndex(), entry.getTerm());
    }
    byte[] result = apply(store, entry.getIndex(), op).toByteArray();
    if (sm.getClientId().size() == WriteBatchApplier.CLIENT_ID_BYTES) { // but hand-made entries
      applied.record(ClientInvocationId.valueOf(sm), result, System.nanoTime());
    }
    return result;
  }

  /**
   * Applies the single-write or schema entry at {@code index} whose state machine data is
   * {@code logData} (a fresh array: the parsed rows alias it instead of a copy). CORRUPTION if it
   * holds no such operation.
   */
  WriteResultPB apply(TabletStore store, long index, byte[] logData) {
    return apply(store, index, decode(index, logData));
  }

  private WriteResultPB apply(TabletStore store, long index, TabletOpPB op) {
    if (op.hasWrite()) {
      return applyWrite(store, op.getWrite(), index);
    }
    if (op.hasAlterSchema()) {
      return applyAlterSchema(store, op.getAlterSchema(), index);
    }
    throw NyalaException.corruption("tablet %s: entry %d holds no known operation", tabletId,
        index);
  }

  /**
   * The entry's operation. An entry that cannot be opened (wrong key, damaged seal) or parsed
   * fails with its own code and a message naming the tablet and the index, for the operator.
   */
  private TabletOpPB decode(long index, byte[] logData) {
    try {
      return AliasingMarshaller.parseAliased(TabletOpPB.parser(), payloads.open(logData));
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      NyalaException ne = NyalaException.from(e);
      throw new NyalaException(ne.code(), String.format(
          "tablet %s: entry %d cannot be opened or decoded: %s", tabletId, index, ne.detail()), e);
    }
  }

  private WriteResultPB applyWrite(TabletStore s, WriteOpPB w, long index) {
    Schema ws = writeSchemas.resolve(w.getSchema(), s.schema());
    List<RowOperations.Op> ops = RowOperations.decode(ws, w.getRowOperations());
    List<RowOpError> errors = s.apply(ws, ops, index);
    WriteResultPB.Builder b = WriteResultPB.newBuilder().setWriteIndex(index);
    for (RowOpError e : errors) {
      b.addPerRowErrors(PerRowResultPB.newBuilder()
          .setRowIndex(e.rowIndex()).setError(e.error().toPb()));
    }
    listener.rowsApplied(tabletId, ops.size() - errors.size());
    return b.build();
  }

  /**
   * An ALTER_SCHEMA entry. A version not newer than the store's (a replay after a snapshot that
   * already holds it) changes nothing; the owner is told either way so that metadata written
   * before a crash catches up.
   */
  private WriteResultPB applyAlterSchema(TabletStore s, AlterSchemaOpPB alter, long index) {
    Schema next = Schema.fromPb(alter.getSchema());
    if (next.version() > s.schema().version()) {
      s.alterSchema(next, index);
      LOG.info("tablet {}: schema altered to version {} at index {}", tabletId, next.version(),
          index);
    }
    listener.schemaAltered(tabletId, next, alter.getNewTableName(), index);
    return WriteResultPB.newBuilder().setWriteIndex(index).build();
  }
}
