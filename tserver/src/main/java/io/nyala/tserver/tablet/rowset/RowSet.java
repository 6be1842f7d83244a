package io.nyala.tserver.tablet.rowset;

import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * A rowset: a stack of layers, oldest first, whose last is the active {@link MemLayer} taking new
 * versions of the rowset's keys. A key lives in exactly one rowset, so its versions never need
 * merging across rowsets, and every version in a layer is newer than every version of that key
 * in the layers below. Immutable: the store swaps whole rowsets when it freezes, flushes or
 * compacts.
 *
 * @param id unique within the tablet, for logs and the superblock
 * @param layers oldest first; the last is the active in-memory layer
 */
public record RowSet(long id, List<Layer> layers) {
  public RowSet {
    layers = List.copyOf(layers);
    if (layers.isEmpty() || !(layers.get(layers.size() - 1) instanceof MemLayer)) {
      throw new IllegalArgumentException("rowset " + id + " needs an active in-memory layer");
    }
  }

  public MemLayer active() {
    return (MemLayer) layers.get(layers.size() - 1);
  }

  /** The key's newest version in the target schema (tombstone or not), or null if absent. */
  public Version newest(byte[] key, Projection p) {
    for (int i = layers.size() - 1; i >= 0; i--) {
      Layer l = layers.get(i);
      Version[] vs = l.get(key);
      if (vs != null) {
        return new Version(vs[0].index(), p.project(l.schema(), vs[0].row()));
      }
    }
    return null;
  }

  /** Whether {@code active} is the only layer (so no older layer can hold a key). */
  public boolean activeIsOldest() {
    return layers.size() == 1;
  }

  public List<DiskLayer> diskLayers() {
    List<DiskLayer> out = new ArrayList<>();
    for (Layer l : layers) {
      if (l instanceof DiskLayer d) {
        out.add(d);
      }
    }
    return out;
  }

  /** The in-memory layers other than the active one (frozen, waiting for a flush). */
  public List<MemLayer> frozenMemLayers() {
    List<MemLayer> out = new ArrayList<>();
    for (int i = 0; i < layers.size() - 1; i++) {
      if (layers.get(i) instanceof MemLayer m) {
        out.add(m);
      }
    }
    return out;
  }

  /** Bytes held in memory by this rowset's in-memory layers. */
  public long memBytes() {
    long n = 0;
    for (Layer l : layers) {
      if (l instanceof MemLayer m) {
        n += m.sizeBytes();
      }
    }
    return n;
  }

  /** The same rowset with the active layer frozen (if it holds anything) and a fresh one on top. */
  public RowSet freeze(MemLayer fresh) {
    List<Layer> next = new ArrayList<>(layers);
    if (active().isEmpty()) {
      next.set(next.size() - 1, fresh);
    } else {
      next.add(fresh);
    }
    return new RowSet(id, next);
  }

  public boolean isEmpty() {
    return layers.size() == 1 && active().isEmpty();
  }
}
