package io.nyala.tserver.tablet.rowset;

import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;

/**
 * One layer of row versions of a rowset: the versions of each key it holds, newest first, as full
 * rows in the layer's own {@link #schema()} (a layer written before an ALTER keeps its schema).
 */
public interface Layer {
  Schema schema();

  /** The key's versions in this layer, newest first, or null if it holds none. */
  Version[] get(byte[] key);

  /** A cursor over the keys ≥ {@code from} (> when not inclusive; null = from the start). */
  LayerCursor seek(byte[] from, boolean inclusive);

  /** An estimate of the bytes this layer holds (memory for in-memory layers). */
  long sizeBytes();

  /** A cursor over a layer's keys in order. Not thread-safe. */
  interface LayerCursor {
    /** Moves to the next key; false when there is none. */
    boolean next();

    byte[] key();

    Version[] versions();
  }
}
