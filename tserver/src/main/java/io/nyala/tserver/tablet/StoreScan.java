package io.nyala.tserver.tablet;

import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.rowset.MergeCursor;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * One page of a {@link BlockTabletStore} scan over a fixed view of its rowsets (whose disk
 * layers the caller holds): merge the rowsets by key, take each key's version visible at the
 * snapshot (read through the current schema's projection), filter, project.
 */
final class StoreScan {
  private StoreScan() {}

  static ScanPage page(ScanSpec spec, List<RowSet> view, Projection proj,
      byte[] resumeAfter, int maxRows) {
    MergeCursor m;
    if (resumeAfter != null) {
      m = new MergeCursor(view, resumeAfter, false);
    } else {
      m = new MergeCursor(view, spec.startKey().length > 0 ? spec.startKey() : null, true);
    }
    List<Object[]> out = new ArrayList<>(Math.min(maxRows, 1024));
    byte[] last = null;
    while (m.next()) {
      if (spec.stopKey().length > 0 && KeyEncoder.compare(m.key(), spec.stopKey()) >= 0) {
        return new ScanPage(out, last, false);
      }
      if (out.size() == maxRows) {
        return new ScanPage(out, last, true);
      }
      Version v = m.visibleAt(spec.snapshot(), proj);
      if (v == null || v.isTombstone() || !matches(spec, proj.target(), v.row())) {
        continue;
      }
      out.add(project(spec, v.row()));
      last = m.key();
    }
    return new ScanPage(out, last, false);
  }

  private static boolean matches(ScanSpec spec, Schema schema, Object[] row) {
    for (int i = 0; i < spec.predicateIndexes().length; i++) {
      int c = spec.predicateIndexes()[i];
      if (!spec.predicates().get(i).test(schema.column(c).type(), row[c])) {
        return false;
      }
    }
    return true;
  }

  private static Object[] project(ScanSpec spec, Object[] row) {
    int[] idx = spec.projectedIndexes();
    Object[] out = new Object[idx.length];
    for (int i = 0; i < idx.length; i++) {
      out[i] = row[idx[i]];
    }
    return out;
  }
}
