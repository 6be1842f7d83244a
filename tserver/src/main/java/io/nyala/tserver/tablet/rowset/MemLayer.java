package io.nyala.tserver.tablet.rowset;

import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory layer: the MemRowSet when it is a rowset's only layer, a DeltaMemStore when it
 * sits above older layers. Written by the store's single writer (under its lock), read lock-free
 * by scans; frozen (never written again) once the store swaps in a fresh one.
 */
public final class MemLayer implements Layer {
  private static final int VERSION_OVERHEAD = 48;
  private final Schema schema;
  private final ConcurrentSkipListMap<byte[], RowVersions> rows =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
  /**
   * The keys {@link #prune} may change: those holding more than one version or a deletion. A
   * key with one live version keeps it whatever the horizon, so an insert-only layer has none
   * and a sweep costs nothing however many keys it holds. Writer only (under the store's lock).
   */
  private final TreeSet<byte[]> prunable = new TreeSet<>(Arrays::compareUnsigned);
  private final AtomicLong bytes = new AtomicLong();
  /** System.nanoTime() of the first write, or 0 while empty. */
  private volatile long firstWriteNanos;

  public MemLayer(Schema schema) {
    this.schema = schema;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public Version[] get(byte[] key) {
    RowVersions rv = rows.get(key);
    return rv == null ? null : rv.all();
  }

  /**
   * Installs {@code v} as the key's newest version and drops what no reader at or after
   * {@code horizon} needs; {@code oldest} says no older layer can hold the key (so a deletion at
   * the horizon may go with the rest).
   */
  public void put(byte[] key, Version v, long horizon, boolean oldest) {
    if (firstWriteNanos == 0) {
      firstWriteNanos = System.nanoTime();
    }
    bytes.addAndGet(estimate(key, v));
    // One descent of the skip list for a new key (the common case: inserts); an update of a key
    // already here pays for a RowVersions it drops.
    RowVersions rv = rows.putIfAbsent(key, new RowVersions(v));
    if (rv == null) {
      if (v.isTombstone()) {
        prunable.add(key);
      }
      return;
    }
    rv.push(v);
    settle(key, rv, horizon, oldest);
  }

  /** Drops versions no reader at or after {@code horizon} needs (writer only). */
  public void prune(long horizon, boolean oldest) {
    for (Iterator<byte[]> it = prunable.iterator(); it.hasNext(); ) {
      byte[] key = it.next();
      RowVersions rv = rows.get(key);
      if (rv == null || !rv.prune(horizon, oldest)) {
        rows.remove(key);
        it.remove();
      } else if (isSettled(rv)) {
        it.remove();
      }
    }
  }

  /** Prunes one key just written and records whether a later {@link #prune} may change it. */
  private void settle(byte[] key, RowVersions rv, long horizon, boolean oldest) {
    if (!rv.prune(horizon, oldest)) {
      rows.remove(key);
      prunable.remove(key);
    } else if (isSettled(rv)) {
      prunable.remove(key);
    } else {
      prunable.add(key);
    }
  }

  /** One live version: nothing any horizon could drop. */
  private static boolean isSettled(RowVersions rv) {
    Version[] vs = rv.all();
    return vs.length == 1 && !vs[0].isTombstone();
  }

  /** Keys a {@link #prune} may change now (for tests). */
  int prunableKeys() {
    return prunable.size();
  }

  private static long estimate(byte[] key, Version v) {
    long n = VERSION_OVERHEAD + key.length;
    if (v.row() != null) {
      for (Object o : v.row()) {
        n += o instanceof String s ? 40 + s.length() * 2L
            : o instanceof byte[] b ? 16 + b.length : 16;
      }
    }
    return n;
  }

  public boolean isEmpty() {
    return rows.isEmpty();
  }

  public int keyCount() {
    return rows.size();
  }

  /** When this layer was first written (System.nanoTime()), or 0 if never. */
  public long firstWriteNanos() {
    return firstWriteNanos;
  }

  @Override
  public long sizeBytes() {
    return bytes.get();
  }

  @Override
  public LayerCursor seek(byte[] from, boolean inclusive) {
    NavigableMap<byte[], RowVersions> view = from == null ? rows : rows.tailMap(from, inclusive);
    Iterator<Map.Entry<byte[], RowVersions>> it = view.entrySet().iterator();
    return new LayerCursor() {
      private Map.Entry<byte[], RowVersions> cur;

      @Override
      public boolean next() {
        cur = it.hasNext() ? it.next() : null;
        return cur != null;
      }

      @Override
      public byte[] key() {
        return cur.getKey();
      }

      @Override
      public Version[] versions() {
        return cur.getValue().all();
      }
    };
  }
}
