package io.nyala.tserver.tablet.rowset;

import io.nyala.tserver.tablet.rowset.Layer.LayerCursor;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Walks the keys of many layers in order. For each key it yields the layers holding it, newest
 * first (layers are given per rowset newest first, and a key's layers all belong to one rowset).
 */
public final class MergeCursor {
  private record Head(LayerCursor cursor, Layer layer, int rank) {}

  private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> {
    int c = Arrays.compareUnsigned(a.cursor.key(), b.cursor.key());
    return c != 0 ? c : Integer.compare(a.rank, b.rank);
  });
  private final List<Head> current = new ArrayList<>();
  private byte[] key;

  /** {@code rowsets}' layers from {@code from} (exclusive unless {@code inclusive}; null = all). */
  public MergeCursor(List<RowSet> rowsets, byte[] from, boolean inclusive) {
    int rank = 0;
    for (RowSet rs : rowsets) {
      List<Layer> ls = rs.layers();
      for (int i = ls.size() - 1; i >= 0; i--) {
        add(ls.get(i), from, inclusive, rank++);
      }
    }
  }

  /** Over explicit layers, newest first (all of one rowset, or of rowsets with disjoint keys). */
  public static MergeCursor ofLayers(List<Layer> newestFirst) {
    MergeCursor m = new MergeCursor(List.of(), null, true);
    for (int i = 0; i < newestFirst.size(); i++) {
      m.add(newestFirst.get(i), null, true, i);
    }
    return m;
  }

  private void add(Layer l, byte[] from, boolean inclusive, int rank) {
    LayerCursor c = l.seek(from, inclusive);
    if (c.next()) {
      heads.add(new Head(c, l, rank));
    }
  }

  /** Moves to the next key; false at the end. */
  public boolean next() {
    for (Head h : current) {
      if (h.cursor.next()) {
        heads.add(h);
      }
    }
    current.clear();
    Head first = heads.poll();
    if (first == null) {
      key = null;
      return false;
    }
    current.add(first);
    key = first.cursor.key();
    while (!heads.isEmpty() && Arrays.equals(heads.peek().cursor.key(), key)) {
      current.add(heads.poll());
    }
    return true;
  }

  public byte[] key() {
    return key;
  }

  /** The version a reader at {@code snapshot} sees, in the projection's schema, or null. */
  public Version visibleAt(long snapshot, Projection p) {
    for (Head h : current) {
      for (Version v : h.cursor.versions()) {
        if (v.index() <= snapshot) {
          return new Version(v.index(), p.project(h.layer.schema(), v.row()));
        }
      }
    }
    return null;
  }

  /** Every version of the key across its layers, newest first, in the projection's schema. */
  public Version[] allVersions(Projection p) {
    if (current.size() == 1) {
      Head h = current.get(0);
      return p.project(h.layer.schema(), h.cursor.versions());
    }
    List<Version> out = new ArrayList<>();
    for (Head h : current) {
      out.addAll(Arrays.asList(p.project(h.layer.schema(), h.cursor.versions())));
    }
    return out.toArray(new Version[0]);
  }
}
