package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.metadata.BatchedWritePB;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.WriteBatchOpPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.RowOpError;
import io.nyala.tserver.tablet.TabletStore;
import io.nyala.tserver.tablet.WriteSchemaCache;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.ClientInvocationId;

/**
 * Applies a {@code write_batch} entry (docs/architecture.md, "Write path"): the rows of every
 * write in one store call at the entry's index, each write's per-row errors and result its own,
 * and each applied write's result recorded in {@link AppliedWrites} under its client's ids.
 *
 * <p>Deterministic, from the entry alone (its bytes and its term): a write whose checked term is
 * not the entry's term is skipped, as is one whose rows do not decode against the batch's
 * schema; a skipped write gets an error result and nothing is recorded for it, so a retry of it
 * is free to be written. Nothing here reads the clock or {@link AppliedWrites} to decide.
 */
final class WriteBatchApplier {
  /** Ratis' client ids are UUIDs. */
  static final int CLIENT_ID_BYTES = 16;

  private final String tabletId;
  private final TabletStateMachine.Listener listener;
  private final WriteSchemaCache writeSchemas;
  private final AppliedWrites applied;

  WriteBatchApplier(String tabletId, TabletStateMachine.Listener listener,
      WriteSchemaCache writeSchemas, AppliedWrites applied) {
    this.tabletId = tabletId;
    this.listener = listener;
    this.writeSchemas = writeSchemas;
    this.applied = applied;
  }

  /** Applies {@code batch}, the entry at {@code index} of {@code term}; returns the reply. */
  byte[] apply(TabletStore s, WriteBatchOpPB batch, long index, long term) {
    int n = batch.getWritesCount();
    NyalaException[] skipped = new NyalaException[n];
    int[] first = new int[n + 1];
    List<RowOperations.Op> ops = new ArrayList<>();
    Schema ws = null;
    try {
      ws = writeSchemas.resolve(batch.getSchema(), s.schema());
    } catch (RuntimeException e) {
      // Every write of the batch was encoded against it: none applies (an ALTER came first).
      java.util.Arrays.fill(skipped, NyalaException.from(e));
    }
    for (int i = 0; i < n; i++) {
      first[i] = ops.size();
      BatchedWritePB w = batch.getWrites(i);
      if (skipped[i] != null) {
        continue;
      }
      if (w.getCheckedTerm() != term) {
        skipped[i] = NyalaException.unavailable("tablet %s: write %s#%d was checked for "
            + "retries in term %d but its entry %d is of term %d; not applied, retry it",
            tabletId, hex(w), w.getSeqNo(), w.getCheckedTerm(), index, term);
        continue;
      }
      try {
        ops.addAll(RowOperations.decode(ws, w.getRowOperations()));
      } catch (RuntimeException e) {
        skipped[i] = NyalaException.from(e);
        first[i] = ops.size();
      }
    }
    first[n] = ops.size();
    List<RowOpError> errors = ws == null ? List.of() : s.apply(ws, ops, index);
    listener.rowsApplied(tabletId, ops.size() - errors.size());
    return WriteBatchFormat.reply(results(batch, index, skipped, first, errors));
  }

  /** Each write's serialized result, recorded for the applied ones; the replied forgotten. */
  private List<byte[]> results(WriteBatchOpPB batch, long index, NyalaException[] skipped,
      int[] first, List<RowOpError> errors) {
    List<byte[]> out = new ArrayList<>(skipped.length);
    long now = System.nanoTime(); // only when a record expires, never what is applied
    int e = 0;
    for (int i = 0; i < skipped.length; i++) {
      BatchedWritePB w = batch.getWrites(i);
      WriteResultPB.Builder r = WriteResultPB.newBuilder().setWriteIndex(index);
      if (skipped[i] != null) {
        r.setError(skipped[i].toPb());
      }
      for (; e < errors.size() && errors.get(e).rowIndex() < first[i + 1]; e++) {
        RowOpError err = errors.get(e);
        r.addPerRowErrors(PerRowResultPB.newBuilder()
            .setRowIndex(err.rowIndex() - first[i]).setError(err.error().toPb()));
      }
      byte[] bytes = r.build().toByteArray();
      out.add(bytes);
      if (w.getClientId().size() != CLIENT_ID_BYTES) {
        continue; // no exactly-once asked for
      }
      ClientId client = RaftIds.clientId(w.getClientId().toByteArray());
      if (skipped[i] == null) {
        applied.record(ClientInvocationId.valueOf(client, w.getSeqNo()), bytes, now);
      }
      for (int k = 0; k < w.getRepliedSeqNosCount(); k++) {
        applied.forget(ClientInvocationId.valueOf(client, w.getRepliedSeqNos(k)));
      }
    }
    return out;
  }

  private static String hex(BatchedWritePB w) {
    return java.util.HexFormat.of().formatHex(w.getClientId().toByteArray());
  }
}
