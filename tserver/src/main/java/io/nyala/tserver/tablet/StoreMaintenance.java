package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.fault.CrashPoints;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.rowset.DiskLayer;
import io.nyala.tserver.tablet.rowset.DiskLayerWriter;
import io.nyala.tserver.tablet.rowset.Layer;
import io.nyala.tserver.tablet.rowset.MemLayer;
import io.nyala.tserver.tablet.rowset.MergeCursor;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
import io.nyala.tserver.tablet.rowset.RowVersions;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flush and compaction of one {@link BlockTabletStore}: write layers outside the store's lock
 * (in one creation transaction each), swap them in under it, then write the superblock, and only
 * then let go of what they replace. One operation at a time per tablet ({@link #running}).
 *
 * <p>Invariant that makes restart exact: the on-disk layers the superblock lists hold precisely
 * the versions up to its durable index. Flush writes every in-memory layer frozen at that index;
 * compaction only rewrites on-disk layers, so it never moves the durable index.
 */
final class StoreMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(StoreMaintenance.class);
  /** Compact once a tablet has this many on-disk layers. */
  static final int COMPACT_AT_LAYERS = 6;

  private final BlockTabletStore store;
  /** Held for the whole of a flush, compaction or destroy. */
  private final ReentrantLock running = new ReentrantLock();
  private volatile boolean closed;
  private volatile boolean destroyed;

  StoreMaintenance(BlockTabletStore store) {
    this.store = store;
  }

  /** Deletes a layer's blocks once the last reader lets go of it (after it left the tablet). */
  void watch(DiskLayer d) {
    d.onLastRelease(l -> {
      if (destroyed) {
        return; // destroy deleted everything in one transaction
      }
      try {
        BlockManager.DeletionTransaction del = store.blocks.newDeletion();
        l.blocks().forEach(del::add);
        del.commit();
      } catch (RuntimeException e) {
        // The blocks are orphans now: the next start deletes them.
        LOG.warn("tablet {}: cannot delete blocks {}: {}", store.tabletId, l.blocks(),
            e.getMessage());
      }
    });
  }

  boolean flush() {
    running.lock();
    try {
      checkOpen();
      BlockTabletStore.Frozen f = store.freezeAll();
      Map<Long, List<MemLayer>> toWrite = new HashMap<>();
      Map<Long, DiskLayer> written = writeFrozen(f, toWrite);
      if (toWrite.isEmpty() && f.index() <= store.durableIndex()) {
        return false;
      }
      synchronized (store.lock) {
        List<RowSet> next = new ArrayList<>();
        for (RowSet rs : store.rowsets()) {
          RowSet r = replaceMem(rs, toWrite.get(rs.id()), written.get(rs.id()));
          if (r != null) {
            next.add(r);
          }
        }
        store.setRowsetsLocked(next);
      }
      writeSuperblock(f.index(), f.term(), f.schema(), f.liveRows());
      CrashPoints.maybeCrash(StoreCrashPoints.FLUSH_AFTER_SUPERBLOCK);
      LOG.debug("tablet {}: flushed {} rowsets up to index {}", store.tabletId, written.size(),
          f.index());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("tablet %s: flush interrupted", store.tabletId);
    } finally {
      running.unlock();
    }
  }

  /**
   * Writes each rowset's frozen in-memory layers (merged) as one on-disk layer: a base if the
   * rowset has nothing on disk yet, else a delta layer. Fills {@code toWrite} with what was
   * written per rowset; returns the new layers (absent when everything was garbage).
   */
  private Map<Long, DiskLayer> writeFrozen(BlockTabletStore.Frozen f,
      Map<Long, List<MemLayer>> toWrite) {
    Map<Long, List<BlockId>> ids = new HashMap<>();
    Projection proj = new Projection(f.schema());
    try (BlockManager.CreationTransaction txn = store.blocks.newCreation()) {
      for (RowSet rs : f.rowsets()) {
        List<MemLayer> mems = rs.frozenMemLayers();
        if (mems.isEmpty()) {
          continue;
        }
        toWrite.put(rs.id(), mems);
        boolean base = rs.diskLayers().isEmpty();
        DiskLayerWriter w = merge(new ArrayList<>(mems), proj, f.horizon(), base);
        if (!w.isEmpty()) {
          ids.put(rs.id(), w.writeTo(txn));
        }
      }
      if (!ids.isEmpty()) {
        txn.commit();
        CrashPoints.maybeCrash(StoreCrashPoints.FLUSH_BEFORE_SUPERBLOCK);
      }
    }
    return openAll(ids);
  }

  private Map<Long, DiskLayer> openAll(Map<Long, List<BlockId>> ids) {
    Map<Long, DiskLayer> out = new HashMap<>();
    ids.forEach((id, blocks) -> {
      DiskLayer d = DiskLayer.open(store.blocks, blocks);
      watch(d);
      out.put(id, d);
    });
    return out;
  }

  /** Merges {@code oldestFirst} layers into a writer, keeping what readers ≥ horizon need. */
  private static DiskLayerWriter merge(List<? extends Layer> oldestFirst, Projection proj,
      long horizon, boolean dropTombstones) {
    List<Layer> newestFirst = new ArrayList<>(oldestFirst);
    java.util.Collections.reverse(newestFirst);
    MergeCursor m = MergeCursor.ofLayers(newestFirst);
    DiskLayerWriter w = new DiskLayerWriter(proj.target());
    while (m.next()) {
      Version[] vs = m.allVersions(proj);
      int keep = RowVersions.prunedLength(vs, horizon, dropTombstones);
      if (keep > 0) {
        w.add(m.key(), keep == vs.length ? vs : java.util.Arrays.copyOf(vs, keep));
      }
    }
    return w;
  }

  /** {@code rs} with {@code flushed} replaced by {@code disk}; null if the rowset became empty. */
  private static RowSet replaceMem(RowSet rs, List<MemLayer> flushed, DiskLayer disk) {
    if (flushed == null) {
      return rs;
    }
    List<Layer> next = new ArrayList<>();
    boolean placed = false;
    for (Layer l : rs.layers()) {
      if (flushed.stream().anyMatch(m -> m == l)) {
        if (!placed && disk != null) {
          next.add(disk);
        }
        placed = true;
      } else {
        next.add(l);
      }
    }
    RowSet r = new RowSet(rs.id(), next);
    return r.isEmpty() ? null : r;
  }

  /**
   * Merges the on-disk layers of every rowset into one rowset (when {@code force}, or when they
   * pile up), dropping versions below the history horizon. In-memory layers of the inputs stay
   * on top of the result, so writes may go on meanwhile.
   */
  boolean compact(boolean force) {
    running.lock();
    try {
      checkOpen();
      List<RowSet> inputs = new ArrayList<>();
      int layers = 0;
      for (RowSet rs : store.rowsets()) {
        if (!rs.diskLayers().isEmpty()) {
          inputs.add(rs);
          layers += rs.diskLayers().size();
        }
      }
      if (layers == 0 || (!force && layers < COMPACT_AT_LAYERS)) {
        return false;
      }
      compactInputs(inputs);
      return true;
    } finally {
      running.unlock();
    }
  }

  private void compactInputs(List<RowSet> inputs) {
    long horizon;
    synchronized (store.lock) {
      horizon = store.gcHorizonLocked();
    }
    Superblock sb = store.durable;
    // On-disk data is all at or below the durable index, so it is written in that schema.
    Projection proj = new Projection(sb.schema());
    List<Layer> oldestFirst = new ArrayList<>();
    List<DiskLayer> old = new ArrayList<>();
    for (RowSet rs : inputs) {
      oldestFirst.addAll(rs.diskLayers());
      old.addAll(rs.diskLayers());
    }
    DiskLayerWriter w = merge(oldestFirst, proj, horizon, true);
    DiskLayer out = null;
    if (!w.isEmpty()) {
      try (BlockManager.CreationTransaction txn = store.blocks.newCreation()) {
        List<BlockId> ids = w.writeTo(txn);
        txn.commit();
        out = DiskLayer.open(store.blocks, ids);
        watch(out);
      }
    }
    installCompaction(inputs, out);
    writeSuperblock(sb.durableIndex(), sb.durableTerm(), sb.schema(), sb.liveRows());
    CrashPoints.maybeCrash(StoreCrashPoints.COMPACTION_BEFORE_RELEASE);
    old.forEach(DiskLayer::release);
    LOG.debug("tablet {}: compacted {} rowsets ({} layers)", store.tabletId, inputs.size(),
        old.size());
  }

  private void installCompaction(List<RowSet> inputs, DiskLayer out) {
    Set<Long> ids = new java.util.HashSet<>();
    inputs.forEach(rs -> ids.add(rs.id()));
    synchronized (store.lock) {
      List<RowSet> cur = store.rowsets();
      List<Layer> mems = new ArrayList<>();
      List<RowSet> next = new ArrayList<>();
      if (out != null) {
        mems.add(out);
      }
      for (RowSet rs : cur.subList(0, cur.size() - 1)) {
        if (!ids.contains(rs.id())) {
          next.add(rs);
          continue;
        }
        for (Layer l : rs.layers()) {
          if (l instanceof MemLayer m && !m.isEmpty()) {
            mems.add(l);
          }
        }
      }
      mems.add(new MemLayer(store.schema()));
      RowSet merged = new RowSet(store.newRowSetIdLocked(), mems);
      if (!merged.isEmpty()) {
        next.add(merged);
      }
      next.add(cur.get(cur.size() - 1));
      store.setRowsetsLocked(next);
    }
  }

  /** Writes the superblock for the current on-disk layers; then it is the durable state. */
  private void writeSuperblock(long index, long term, Schema schema, long live) {
    List<Superblock.RowSetEntry> entries = new ArrayList<>();
    for (RowSet rs : store.rowsets()) {
      List<List<BlockId>> layers = new ArrayList<>();
      for (DiskLayer d : rs.diskLayers()) {
        layers.add(d.blocks());
      }
      if (!layers.isEmpty()) {
        entries.add(new Superblock.RowSetEntry(rs.id(), layers));
      }
    }
    // The horizon only grows, and every version dropped so far was below it.
    Superblock sb = new Superblock(schema, index, term, store.historyHorizon(), live, entries);
    sb.write(store.env, store.superblockFile);
    store.durable = sb;
  }

  /** Captures the superblock and the layers it lists; no flush or compaction runs meanwhile. */
  BlockTabletStore.DurableSnapshot pinDurable() {
    running.lock();
    try {
      checkOpen();
      List<DiskLayer> held = new ArrayList<>();
      for (RowSet rs : store.rowsets()) {
        for (DiskLayer d : rs.diskLayers()) {
          if (d.retain()) {
            held.add(d);
          }
        }
      }
      return new BlockTabletStore.DurableSnapshot(store.durable, held);
    } finally {
      running.unlock();
    }
  }

  void checkOpen() {
    if (closed) {
      throw NyalaException.illegalState("tablet %s: store is closed", store.tabletId);
    }
  }

  void close() {
    running.lock();
    try {
      closed = true;
    } finally {
      running.unlock();
    }
  }

  void destroy() {
    running.lock();
    try {
      closed = true;
      destroyed = true;
      destroyFiles(store.env, store.blocks, store.superblockFile);
    } finally {
      running.unlock();
    }
  }

  /**
   * After a tablet copy replaced the superblock: closes the store and drops its reference on
   * every on-disk layer the new superblock does not list ({@code keep}), so their blocks are
   * deleted once no reader holds them. The store is left empty.
   */
  void retire(Set<BlockId> keep) {
    running.lock();
    try {
      closed = true;
      List<DiskLayer> drop = new ArrayList<>();
      synchronized (store.lock) {
        for (RowSet rs : store.rowsets()) {
          for (DiskLayer d : rs.diskLayers()) {
            if (!keep.containsAll(d.blocks())) {
              drop.add(d);
            }
          }
        }
        store.setRowsetsLocked(List.of(new RowSet(store.newRowSetIdLocked(),
            List.of(new MemLayer(store.schema())))));
      }
      drop.forEach(DiskLayer::release);
    } finally {
      running.unlock();
    }
  }

  static void destroyFiles(Env env, BlockManager blocks, Path superblockFile) {
    if (!env.exists(superblockFile)) {
      return;
    }
    Superblock sb = Superblock.read(env, superblockFile);
    Set<BlockId> live = blocks.blockIds();
    BlockManager.DeletionTransaction del = blocks.newDeletion();
    for (BlockId b : sb.allBlocks()) {
      if (live.contains(b)) {
        del.add(b);
      }
    }
    del.commit();
    env.deleteFile(superblockFile);
  }
}
