package io.nyala.tserver.tablet.maintenance;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.fault.CrashPoints;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.StoreCrashPoints;
import io.nyala.tserver.tablet.StoreLifecycle;
import io.nyala.tserver.tablet.StoreState;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.tablet.rowset.DiskLayer;
import io.nyala.tserver.tablet.rowset.DiskLayerWriter;
import io.nyala.tserver.tablet.rowset.Layer;
import io.nyala.tserver.tablet.rowset.MemLayer;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
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
 * Flush and compaction ({@link StoreCompaction}) of one {@link BlockTabletStore}: write layers
 * without holding up writers (in one creation transaction each), swap them in
 * ({@link StoreState#swapRowsets}), then write
 * the superblock, and only then let go of what they replace. One operation at a time per tablet
 * ({@link #running}).
 *
 * <p>Invariant that makes restart exact: the on-disk layers the superblock lists hold precisely
 * the versions up to its durable index. Flush writes every in-memory layer frozen at that index;
 * compaction only rewrites on-disk layers, so it never moves the durable index.
 */
public final class StoreMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(StoreMaintenance.class);
  private final String tabletId;
  private final Env env;
  /** The tablet's view of the server's block manager. */
  private final BlockManager blocks;
  private final Path superblockFile;
  private final StoreState state;
  /** The store's lifecycle; moved out of OPEN here only, under {@link #running}. */
  private final StoreLifecycle lifecycle;
  private final StoreCompaction compaction;
  /** Held for the whole of a flush, compaction or destroy. */
  private final ReentrantLock running = new ReentrantLock();
  /** What the superblock on disk says; written under {@link #running} only. */
  private volatile Superblock durable;

  /**
   * Maintenance of the store of {@code tabletId} whose in-memory state is {@code state}, whose
   * blocks are in {@code blocks} and whose superblock {@code superblockFile} says
   * {@code durable} now.
   */
  public StoreMaintenance(String tabletId, Env env, BlockManager blocks, Path superblockFile,
      StoreState state, StoreLifecycle lifecycle, Superblock durable) {
    this.tabletId = tabletId;
    this.env = env;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
    this.state = state;
    this.lifecycle = lifecycle;
    this.durable = durable;
    this.compaction = new StoreCompaction(this, tabletId, blocks, state);
  }

  /** What the superblock on disk says (durable index and term read together). No I/O. */
  public Superblock durable() {
    return durable;
  }

  /** Deletes a layer's blocks once the last reader lets go of it (after it left the tablet). */
  public void watch(DiskLayer d) {
    d.onLastRelease(l -> {
      if (lifecycle.state() == StoreLifecycle.State.DESTROYED) {
        return; // destroy deleted everything in one transaction
      }
      try {
        BlockManager.DeletionTransaction del = blocks.newDeletion();
        l.blocks().forEach(del::add);
        del.commit();
      } catch (RuntimeException e) {
        // The blocks are orphans now: the next start deletes them.
        LOG.warn("tablet {}: cannot delete blocks {}: {}", tabletId, l.blocks(),
            e.getMessage());
      }
    });
  }

  public boolean flush() {
    running.lock();
    try {
      checkOpen();
      StoreState.Frozen f = state.freeze(this::checkOpen);
      Map<Long, List<MemLayer>> toWrite = new HashMap<>();
      Map<Long, DiskLayer> written = writeFrozen(f, toWrite);
      if (toWrite.isEmpty() && f.index() <= durable.durableIndex()) {
        return false;
      }
      state.swapRowsets((current, schema, ids) -> {
        List<RowSet> next = new ArrayList<>();
        for (RowSet rs : current) {
          RowSet r = replaceMem(rs, toWrite.get(rs.id()), written.get(rs.id()));
          if (r != null) {
            next.add(r);
          }
        }
        return next;
      });
      writeSuperblock(f.index(), f.term(), f.schema(), f.liveRows());
      CrashPoints.maybeCrash(StoreCrashPoints.FLUSH_AFTER_SUPERBLOCK);
      LOG.debug("tablet {}: flushed {} rowsets up to index {}", tabletId, written.size(),
          f.index());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("tablet %s: flush interrupted", tabletId);
    } finally {
      running.unlock();
    }
  }

  /**
   * Writes each rowset's frozen in-memory layers (merged) as one on-disk layer: a base if the
   * rowset has nothing on disk yet, else a delta layer. Fills {@code toWrite} with what was
   * written per rowset; returns the new layers (absent when everything was garbage).
   */
  private Map<Long, DiskLayer> writeFrozen(StoreState.Frozen f,
      Map<Long, List<MemLayer>> toWrite) {
    Map<Long, List<BlockId>> ids = new HashMap<>();
    Projection proj = new Projection(f.schema());
    try (BlockManager.CreationTransaction txn = blocks.newCreation()) {
      for (RowSet rs : f.rowsets()) {
        List<MemLayer> mems = rs.frozenMemLayers();
        if (mems.isEmpty()) {
          continue;
        }
        toWrite.put(rs.id(), mems);
        boolean base = rs.diskLayers().isEmpty();
        // Streams page by page into the transaction's blocks; one layer at a time.
        List<BlockId> layer = DiskLayerWriter.merge(mems, proj, f.horizon(), base, txn).finish();
        if (!layer.isEmpty()) {
          ids.put(rs.id(), layer);
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
    ids.forEach((id, layer) -> {
      DiskLayer d = DiskLayer.open(blocks, layer);
      watch(d);
      out.put(id, d);
    });
    return out;
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
   * Runs the compaction {@code policy} picks now (with {@code force}, whatever still reduces the
   * layers within its budget); null if none was due.
   */
  public CompactionResult compact(CompactionPolicy policy, boolean force) {
    running.lock();
    try {
      checkOpen();
      CompactionPolicy.Plan plan =
          policy.pick(StoreCompaction.candidates(state.rowsets()), force);
      return plan == null ? null : compaction.run(plan);
    } finally {
      running.unlock();
    }
  }

  /** Forced compactions with the default policy until none is left to do. */
  public void compactAll() {
    // Each forced compaction removes at least one on-disk layer, so this ends.
    int layers = 0;
    for (RowSet rs : state.rowsets()) {
      layers += rs.diskLayers().size();
    }
    for (int n = layers; n > 0; n--) {
      if (compact(CompactionPolicy.DEFAULT, true) == null) {
        return;
      }
    }
  }

  /** Writes the superblock for the current on-disk layers; then it is the durable state. */
  void writeSuperblock(long index, long term, Schema schema, long live) {
    List<Superblock.RowSetEntry> entries = new ArrayList<>();
    for (RowSet rs : state.rowsets()) {
      List<List<BlockId>> layers = new ArrayList<>();
      for (DiskLayer d : rs.diskLayers()) {
        layers.add(d.blocks());
      }
      if (!layers.isEmpty()) {
        entries.add(new Superblock.RowSetEntry(rs.id(), layers));
      }
    }
    // The horizon only grows, and every version dropped so far was below it.
    Superblock sb =
        new Superblock(schema, index, term, state.historyHorizon(), live, entries);
    sb.write(env, superblockFile);
    durable = sb;
  }

  /** Captures the superblock and the layers it lists; no flush or compaction runs meanwhile. */
  public BlockTabletStore.DurableSnapshot pinDurable() {
    running.lock();
    try {
      checkOpen();
      List<DiskLayer> held = new ArrayList<>();
      for (RowSet rs : state.rowsets()) {
        for (DiskLayer d : rs.diskLayers()) {
          if (d.retain()) {
            held.add(d);
          }
        }
      }
      return new BlockTabletStore.DurableSnapshot(durable, held);
    } finally {
      running.unlock();
    }
  }

  void checkOpen() {
    if (lifecycle.isClosed()) {
      throw NyalaException.illegalState("tablet %s: store is closed", tabletId);
    }
  }

  public void close() {
    running.lock();
    try {
      lifecycle.close();
    } finally {
      running.unlock();
    }
  }

  public void destroy() {
    running.lock();
    try {
      lifecycle.destroy();
      destroyFiles(env, blocks, superblockFile);
    } finally {
      running.unlock();
    }
  }

  /**
   * After a tablet copy replaced the superblock: closes the store and drops its reference on
   * every on-disk layer the new superblock does not list ({@code keep}), so their blocks are
   * deleted once no reader holds them. The store is left empty.
   */
  public void retire(Set<BlockId> keep) {
    running.lock();
    try {
      lifecycle.moveTo(StoreLifecycle.State.RETIRED);
      List<DiskLayer> drop = new ArrayList<>();
      state.swapRowsets((current, schema, ids) -> {
        for (RowSet rs : current) {
          for (DiskLayer d : rs.diskLayers()) {
            if (!keep.containsAll(d.blocks())) {
              drop.add(d);
            }
          }
        }
        return List.of(new RowSet(ids.getAsLong(), List.of(new MemLayer(schema))));
      });
      drop.forEach(DiskLayer::release);
    } finally {
      running.unlock();
    }
  }

  public static void destroyFiles(Env env, BlockManager blocks, Path superblockFile) {
    if (!env.exists(superblockFile)) {
      return;
    }
    Superblock sb;
    try {
      sb = Superblock.read(env, superblockFile);
    } catch (NyalaException e) {
      if (e.code() != StatusCode.CORRUPTION) {
        throw e;
      }
      // A FAILED replica being deleted: which blocks it had is unknown, so none is deleted
      // here; those no other superblock lists are orphans the next start collects.
      LOG.warn("tablet superblock {} is damaged ({}); deleting it, its blocks are left to the "
          + "orphan collection of the next start", superblockFile, e.detail());
      env.deleteFile(superblockFile);
      return;
    }
    BlockManager.DeletionTransaction del = blocks.newDeletion();
    for (BlockId b : sb.allBlocks()) {
      if (blocks.contains(b)) { // a delete interrupted after its transaction left none
        del.add(b);
      }
    }
    del.commit();
    env.deleteFile(superblockFile);
    // Durable before the caller deletes the tablet metadata: a superblock must not come back.
    env.syncDir(superblockFile.toAbsolutePath().getParent());
  }
}
