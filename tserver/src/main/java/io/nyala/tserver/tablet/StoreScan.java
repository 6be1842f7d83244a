package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.row.ValueCodec;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.tablet.rowset.MergeCursor;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * One page of a {@link BlockTabletStore} scan: take the rowsets as they are now (holding their
 * disk layers for the page), merge them by key, take each key's version visible at the snapshot,
 * filter, project.
 *
 * <p>Scans across schema changes: the spec's columns are fixed at open, by column id, and every
 * page reads the layers of that moment through a {@link Projection} onto the spec's own schema.
 * Layers of older schemas read an added column's default; layers of newer ones (written or
 * rewritten after an ALTER) are matched by id, so a renamed column keeps its data and its
 * open-time name, and a column added after the open is simply not read.
 *
 * <p>A column the scan reads (projected or in a predicate) that was dropped after the open fails
 * the page with ILLEGAL_STATE naming it. Its values at the snapshot do exist before the drop, but
 * nothing keeps them afterwards: a flush after the ALTER writes the frozen in-memory rows in the
 * new schema, and compaction rewrites every disk layer in it, both without the column, and scans
 * hold layers only for the length of a page. Returning them would mean holding every layer (and
 * flushed in-memory layer) of the open for the scan's life; failing as soon as the store's schema
 * lacks the column, rather than when its data happens to be gone, keeps the outcome independent
 * of flush and compaction timing.
 */
final class StoreScan {
  private StoreScan() {}

  static ScanPage scan(String tabletId, StoreState state, TabletScanSpec spec, byte[] resumeAfter,
      int maxRows, long maxBytes) {
    if (maxRows < 1 || maxBytes < 1) {
      throw NyalaException.invalidArgument("a scan page needs room for at least one row");
    }
    // Rowsets and projection are taken together: the view matches the schema checked.
    try (StoreState.View view = state.retainView()) {
      Projection read = readProjection(tabletId, spec, view.projection());
      return page(spec, view.rowsets(), read, resumeAfter, maxRows, maxBytes);
    }
  }

  /**
   * The projection a page of {@code spec} reads through: the store's own while the schema has not
   * changed since the open, else one onto the spec's schema, once every column the scan reads is
   * known to still exist (a column of the current schema is in every layer written since it was
   * added, so a layer lacking it predates it and its default is the right value).
   */
  private static Projection readProjection(String tabletId, TabletScanSpec spec,
      Projection current) {
    Schema now = current.target();
    if (spec.schema().equals(now)) {
      return current;
    }
    checkNotDropped(tabletId, spec, spec.projectedIndexes(), now);
    checkNotDropped(tabletId, spec, spec.predicateIndexes(), now);
    return new Projection(spec.schema());
  }

  private static void checkNotDropped(String tabletId, TabletScanSpec spec, int[] columns,
      Schema now) {
    for (int i : columns) {
      ColumnSchema c = spec.schema().column(i);
      if (Projection.indexOf(now, c) < 0) {
        throw NyalaException.illegalState("tablet %s: column '%s' (id %d) read by this scan was "
            + "dropped after the scan opened with schema version %d (the tablet is at version "
            + "%d); start a new scan", tabletId, c.name(), c.id(), spec.schema().version(),
            now.version());
      }
    }
  }

  /**
   * Rows after {@code resumeAfter} until {@code maxRows}, or until the row whose encoded size
   * reaches {@code maxBytes} (included: a page always holds at least one row, however big).
   */
  private static ScanPage page(TabletScanSpec spec, List<RowSet> view, Projection proj,
      byte[] resumeAfter, int maxRows, long maxBytes) {
    MergeCursor m;
    if (resumeAfter != null) {
      m = new MergeCursor(view, resumeAfter, false);
    } else {
      m = new MergeCursor(view, spec.startKey().length > 0 ? spec.startKey() : null, true);
    }
    List<Object[]> out = new ArrayList<>(Math.min(maxRows, 1024));
    Type[] types = new Type[spec.projection().columnCount()];
    for (int i = 0; i < types.length; i++) {
      types[i] = spec.projection().column(i).type();
    }
    byte[] last = null;
    long bytes = 0;
    while (m.next()) {
      if (spec.stopKey().length > 0 && KeyEncoder.compare(m.key(), spec.stopKey()) >= 0) {
        return new ScanPage(out, last, false);
      }
      if (out.size() == maxRows || bytes >= maxBytes) {
        return new ScanPage(out, last, true);
      }
      Version v = m.visibleAt(spec.snapshot(), proj);
      if (v == null || v.isTombstone() || !matches(spec, v.row())) {
        continue;
      }
      Object[] row = project(spec, v.row());
      out.add(row);
      bytes += encodedSize(types, row);
      last = m.key();
    }
    return new ScanPage(out, last, false);
  }

  /** Predicates by the spec's own positions: rows come in the spec's schema (same types). */
  private static boolean matches(TabletScanSpec spec, Object[] row) {
    for (int i = 0; i < spec.predicateIndexes().length; i++) {
      int c = spec.predicateIndexes()[i];
      if (!spec.predicates().get(i).test(spec.schema().column(c).type(), row[c])) {
        return false;
      }
    }
    return true;
  }

  /** The bytes the row takes in the response's row block (null bitmap, then values). */
  private static long encodedSize(Type[] types, Object[] row) {
    long n = (row.length + 7) / 8;
    for (int i = 0; i < row.length; i++) {
      if (row[i] != null) {
        n += ValueCodec.encodedSize(types[i], row[i]);
      }
    }
    return n;
  }

  private static Object[] project(TabletScanSpec spec, Object[] row) {
    int[] idx = spec.projectedIndexes();
    Object[] out = new Object[idx.length];
    for (int i = 0; i < idx.length; i++) {
      out[i] = row[idx[i]];
    }
    return out;
  }
}
