package io.nyala.tserver.tablet;

import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scan reads, fixed when the scan opens: the tablet {@code schema} it was resolved against,
 * the projected columns (as positions in that schema), predicates bound to it, the encoded key
 * range [start, stop) (empty = unbounded) and the snapshot. The columns are those of
 * {@code schema}, so by column id: a page read after an ALTER still returns them under their
 * open-time names, and never a column added since (see {@link StoreScan}).
 */
public record TabletScanSpec(Schema schema, Schema projection, int[] projectedIndexes,
    List<ColumnPredicate> predicates, int[] predicateIndexes,
    byte[] startKey, byte[] stopKey, long snapshot) {

  /** Builds a spec, resolving names against {@code schema} (NOT_FOUND names a missing column). */
  public static TabletScanSpec of(Schema schema, List<String> columns,
      List<ColumnPredicate> predicates, byte[] startKey, byte[] stopKey, long snapshot) {
    Schema projection = schema.project(columns);
    int[] idx = new int[projection.columnCount()];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = schema.columnIndex(projection.column(i).name());
    }
    List<ColumnPredicate> bound = new ArrayList<>(predicates.size());
    int[] pidx = new int[predicates.size()];
    for (int i = 0; i < pidx.length; i++) {
      ColumnPredicate p = predicates.get(i);
      pidx[i] = schema.columnIndex(p.column());
      bound.add(p.bind(schema));
    }
    return new TabletScanSpec(schema, projection, idx, List.copyOf(bound), pidx,
        startKey == null ? new byte[0] : startKey, stopKey == null ? new byte[0] : stopKey,
        snapshot);
  }

  /** The same spec at another snapshot. */
  public TabletScanSpec atSnapshot(long newSnapshot) {
    return new TabletScanSpec(schema, projection, projectedIndexes, predicates, predicateIndexes,
        startKey, stopKey, newSnapshot);
  }
}
