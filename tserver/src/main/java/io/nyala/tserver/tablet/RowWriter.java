package io.nyala.tserver.tablet;

import io.nyala.common.row.KeyEncoder;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.List;

/**
 * Writes one row operation into the rowsets of one schema (docs/architecture.md, "Write path",
 * step 9): a key's new version goes to the active in-memory layer of the rowset that already
 * holds the key, a new key to the MemRowSet, so every key lives in exactly one rowset. Row
 * semantics are {@link RowMutator}'s. Used by {@link StoreState} under its lock only.
 */
final class RowWriter {
  private final Schema schema;
  private final Projection projection;
  private final RowMutator mutator;

  RowWriter(Schema schema, Projection projection) {
    this.schema = schema;
    this.projection = projection;
    this.mutator = new RowMutator(schema);
  }

  /**
   * Applies {@code op} (its row mapped to the tablet's columns by {@code map}) at
   * {@code raftIndex}, dropping versions older than {@code horizon} on the way. Returns the
   * change in live rows: -1 (deleted), +1 (a new live key) or 0. Throws the row's error.
   */
  int write(List<RowSet> rowsets, RowOperations.Op op, int[] map, long raftIndex,
      long horizon) {
    RowMutator.TabletRow r = mutator.translate(op.type(), op.row(), map);
    byte[] key = KeyEncoder.encode(schema.keyColumns(), r.values());
    RowSet home = null;
    Version newest = null;
    // Newest rowsets first: the MemRowSet holds the recently inserted keys.
    for (int i = rowsets.size() - 1; i >= 0 && home == null; i--) {
      newest = rowsets.get(i).newest(key, projection);
      if (newest != null) {
        home = rowsets.get(i);
      }
    }
    Object[] current = newest == null || newest.isTombstone() ? null : newest.row();
    Object[] next = mutator.mutate(op.type(), r, current);
    if (next == null) {
      return 0;
    }
    boolean deleted = next == RowMutator.DELETED;
    RowSet target = home != null ? home : rowsets.get(rowsets.size() - 1);
    target.active().put(key, new Version(raftIndex, deleted ? null : next), horizon,
        target.activeIsOldest());
    if (deleted) {
      return -1;
    }
    return current == null ? 1 : 0;
  }
}
