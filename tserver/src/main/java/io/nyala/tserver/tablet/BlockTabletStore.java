package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.maintenance.CompactionPolicy;
import io.nyala.tserver.tablet.maintenance.CompactionResult;
import io.nyala.tserver.tablet.maintenance.StoreMaintenance;
import io.nyala.tserver.tablet.rowset.DiskLayer;
import io.nyala.tserver.tablet.rowset.Layer;
import io.nyala.tserver.tablet.rowset.MemLayer;
import io.nyala.tserver.tablet.rowset.MergeCursor;
import io.nyala.tserver.tablet.rowset.RowSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The block-based tablet store (docs/storage-engine.md): rowsets of layers (see
 * {@code tablet.rowset}); new keys go to the MemRowSet (the last rowset, a single in-memory layer),
 * versions of existing keys to the active in-memory layer (DeltaMemStore) of the rowset holding the
 * key. {@link #flush} and {@link #compact} ({@link StoreMaintenance}) turn in-memory layers into
 * blocks and the superblock records what is durable.
 *
 * <p>Its in-memory state (rowsets, schema, indexes, pins, history horizon) has one owner,
 * {@link StoreState}, which also states the garbage rule. The history horizon's ancient history
 * mark ({@link AncientHistoryMark}) is the index applied {@code --tablet_history_max_age_sec}
 * ago, so a scan resumed on any replica at a snapshot younger than that still reads it
 * (docs/data-safety.md, "Scans").
 */
public final class BlockTabletStore implements TabletStore {
  final String tabletId;
  final Env env;
  /** The server's block manager as this tablet sees it: damage fails the replica. */
  final TabletBlocks blocks;
  final Path superblockFile;
  /** Rowsets, schema, indexes and pins, and the lock that guards them. */
  final StoreState state;
  /** OPEN until closed, retired or destroyed; moved by {@link #maintenance} only. */
  private final StoreLifecycle lifecycle;
  final StoreMaintenance maintenance;
  /** What a flush or compaction that failed on the disk does to this tablet. */
  private final StoreDiskErrors diskErrors;
  private volatile Runnable flushListener = () -> {};

  private BlockTabletStore(String tabletId, Env env, TabletBlocks blocks, Path superblockFile,
      Superblock sb, List<RowSet> loaded, HistoryRetention retention) {
    this.tabletId = tabletId;
    this.env = env;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
    this.state = new StoreState(tabletId, sb, loaded, retention);
    this.lifecycle = new StoreLifecycle(tabletId);
    this.maintenance =
        new StoreMaintenance(tabletId, env, blocks, superblockFile, state, lifecycle, sb);
    this.diskErrors = new StoreDiskErrors(tabletId, blocks);
    for (RowSet rs : loaded) {
      rs.diskLayers().forEach(maintenance::watch);
    }
  }

  /**
   * Opens the tablet's store from its superblock, or an empty one with {@code initialSchema} if
   * it has none yet (a new tablet). Holds exactly the state at the superblock's durable index.
   */
  public static BlockTabletStore open(String tabletId, Schema initialSchema, Env env,
      BlockManager blocks, Path superblockFile) {
    return open(tabletId, initialSchema, env, blocks, superblockFile, HistoryRetention.NONE);
  }

  /** Opens the store (see above) keeping the history {@code retention} says. */
  public static BlockTabletStore open(String tabletId, Schema initialSchema, Env env,
      BlockManager serverBlocks, Path superblockFile, HistoryRetention retention) {
    TabletBlocks blocks = new TabletBlocks(tabletId, serverBlocks, superblockFile);
    if (!env.exists(superblockFile)) {
      Superblock empty = new Superblock(initialSchema, 0, 0, 0, 0, List.of());
      return new BlockTabletStore(tabletId, env, blocks, superblockFile, empty, List.of(),
          retention);
    }
    Superblock sb = Superblock.read(env, superblockFile);
    List<RowSet> loaded = new ArrayList<>();
    for (Superblock.RowSetEntry e : sb.rowsets()) {
      List<Layer> layers = new ArrayList<>();
      for (List<BlockId> ids : e.layers()) {
        layers.add(DiskLayer.open(blocks, ids));
      }
      layers.add(new MemLayer(sb.schema()));
      loaded.add(new RowSet(e.id(), layers));
    }
    return new BlockTabletStore(tabletId, env, blocks, superblockFile, sb, loaded, retention);
  }

  /** The tablet whose store this is. */
  public String tabletId() {
    return tabletId;
  }

  @Override
  public Schema schema() {
    return state.schema();
  }

  @Override
  public List<RowOpError> apply(Schema writeSchema, List<RowOperations.Op> ops, long raftIndex) {
    return state.apply(writeSchema, ops, raftIndex);
  }

  @Override
  public void alterSchema(Schema newSchema, long raftIndex) {
    state.alterSchema(newSchema, raftIndex);
  }

  @Override
  public void markApplied(long term, long index) {
    state.markApplied(term, index);
  }

  /** The current rowsets, the last being the MemRowSet (for tests). */
  List<RowSet> rowsets() {
    return state.rowsets();
  }

  @Override
  public long lastAppliedIndex() {
    return state.lastApplied();
  }

  @Override
  public long durableIndex() {
    return maintenance.durable().durableIndex();
  }

  /** What the superblock on disk says (durable index and term read together). No I/O. */
  public Superblock durableState() {
    return maintenance.durable();
  }

  @Override
  public long durableTerm() {
    return maintenance.durable().durableTerm();
  }

  @Override
  public long pinLatest(long atLeast) {
    return state.pinLatest(atLeast);
  }

  @Override
  public void pin(long snapshot) {
    state.pin(snapshot);
  }

  @Override
  public void unpin(long snapshot) {
    state.unpin(snapshot);
  }

  /** Pinned snapshots (for tests and pages). */
  public int pinCount() {
    return state.pinCount();
  }

  @Override
  public ScanPage scan(TabletScanSpec spec, byte[] resumeAfter, int maxRows, long maxBytes) {
    return StoreScan.scan(tabletId, state, spec, resumeAfter, maxRows, maxBytes);
  }

  @Override
  public long liveRowCount() {
    return state.liveRows();
  }

  @Override
  public long onDiskBytes() {
    long bytes = 0;
    for (RowSet rs : state.rowsets()) {
      for (DiskLayer d : rs.diskLayers()) {
        bytes += d.sizeBytes();
      }
    }
    return bytes;
  }

  @Override
  public void collectGarbage() {
    state.collectGarbage();
  }

  @Override
  public boolean flush() {
    boolean flushed;
    try {
      flushed = maintenance.flush();
    } catch (RuntimeException e) {
      throw diskErrors.failed("flush", e);
    }
    if (flushed) {
      diskErrors.flushed();
      flushListener.run();
    }
    return flushed;
  }

  /**
   * Why this tablet's flushes fail for a full disk (its rows wait in memory and in the Raft log),
   * or null; cleared by the next flush that succeeds (docs/data-safety.md, "Disk faults").
   */
  public NyalaException diskFull() {
    return diskErrors.diskFull();
  }

  @Override
  public void compact() {
    try {
      maintenance.compactAll();
    } catch (RuntimeException e) {
      throw diskErrors.failed("compaction", e);
    }
  }

  /** Whether this store was closed (its replica hibernated, was deleted or replaced). */
  public boolean isClosed() {
    return lifecycle.isClosed();
  }

  /** Runs the compaction {@code policy} picks now (the maintenance thread); null if none. */
  public CompactionResult compactIfNeeded(CompactionPolicy policy) {
    try {
      return maintenance.compact(policy, false);
    } catch (RuntimeException e) {
      throw diskErrors.failed("compaction", e);
    }
  }

  @Override
  public long memoryBytes() {
    long n = 0;
    for (RowSet rs : state.rowsets()) {
      n += rs.memBytes();
    }
    return n;
  }

  @Override
  public long oldestUnflushedWriteNanos() {
    long oldest = 0;
    for (RowSet rs : state.rowsets()) {
      for (Layer l : rs.layers()) {
        if (l instanceof MemLayer m && m.firstWriteNanos() != 0
            && (oldest == 0 || m.firstWriteNanos() - oldest < 0)) {
          oldest = m.firstWriteNanos();
        }
      }
    }
    return oldest;
  }

  /** Row versions held across all layers (for tests: shows what GC kept). */
  public int versionCount() {
    MergeCursor m = new MergeCursor(state.rowsets(), null, true);
    int n = 0;
    while (m.next()) {
      n += m.allVersions(state.projection()).length;
    }
    return n;
  }

  /** The rowsets and their layers, e.g. {@code 3:[disk(50 keys), mem(50 keys)]} (for debugging). */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    for (RowSet rs : state.rowsets()) {
      sb.append(rs.id()).append(":[");
      for (Layer l : rs.layers()) {
        sb.append(l instanceof DiskLayer d ? "disk(" + d.keyCount() + " keys) "
            : "mem(" + ((MemLayer) l).keyCount() + " keys) ");
      }
      sb.append("] ");
    }
    return sb.toString().trim();
  }

  /** On-disk layers across all rowsets (for tests and the status page). */
  public int diskLayerCount() {
    int n = 0;
    for (RowSet rs : state.rowsets()) {
      n += rs.diskLayers().size();
    }
    return n;
  }

  /**
   * The durable state for a tablet copy: the superblock and its layers, whose blocks stay on
   * disk (even if a compaction replaces them) until the snapshot is closed.
   */
  public record DurableSnapshot(Superblock superblock, List<DiskLayer> layers)
      implements AutoCloseable {
    @Override
    public void close() {
      layers.forEach(DiskLayer::release);
    }
  }

  /** Pins the current durable state (see {@link DurableSnapshot}). */
  public DurableSnapshot pinDurable() {
    return maintenance.pinDurable();
  }

  /** Closes this store after a tablet copy installed another superblock (see StoreMaintenance). */
  public void retire(Set<BlockId> keep) {
    maintenance.retire(keep);
  }

  @Override
  public void onFlushed(Runnable r) {
    this.flushListener = r;
  }

  /**
   * Tells {@code hook} when a read finds one of this tablet's blocks missing or unreadable (the
   * read itself fails with CORRUPTION); see {@link TabletBlocks}.
   */
  public void onDamaged(Consumer<NyalaException> hook) {
    blocks.onDamaged(hook);
  }

  @Override
  public void close() {
    maintenance.close();
  }

  @Override
  public void destroy() {
    maintenance.destroy();
  }

  /** Deletes the blocks and superblock of a tablet whose store is not open. */
  public static void destroy(Env env, BlockManager blocks, Path superblockFile) {
    StoreMaintenance.destroyFiles(env, blocks, superblockFile);
  }
}
