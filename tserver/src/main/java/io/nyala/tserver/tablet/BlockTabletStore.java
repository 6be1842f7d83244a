package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.rowset.DiskLayer;
import io.nyala.tserver.tablet.rowset.Layer;
import io.nyala.tserver.tablet.rowset.MemLayer;
import io.nyala.tserver.tablet.rowset.MergeCursor;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The block-based tablet store (docs/storage-engine.md): rowsets of layers (see
 * {@code tablet.rowset}); new keys go to the MemRowSet (the last rowset, a single in-memory layer),
 * versions of existing keys to the active in-memory layer (DeltaMemStore) of the rowset holding the
 * key. {@link #flush} and {@link #compact} ({@link StoreMaintenance}) turn in-memory layers into
 * blocks and the superblock records what is durable.
 *
 * <p>Garbage rule: a version is dropped once no pinned snapshot and no future scan can see it,
 * i.e. everything older than the newest version at or before the history horizon
 * {@code min(oldest pin, ancient history mark)}. The mark ({@link AncientHistoryMark}) is the
 * index applied {@code --tablet_history_max_age_sec} ago, so a scan resumed on any replica at a
 * snapshot younger than that still reads it (docs/data-safety.md, "Scans").
 */
public final class BlockTabletStore implements TabletStore {
  final String tabletId;
  final Env env;
  /** The server's block manager as this tablet sees it: damage fails the replica. */
  final TabletBlocks blocks;
  final Path superblockFile;
  /** Serialises writers (apply, alter, GC, structure swaps) and pin bookkeeping. */
  final Object lock = new Object();
  /** Rowsets; the last is the MemRowSet. Replaced whole under {@link #lock}, read lock-free. */
  private volatile List<RowSet> rowsets;
  private volatile Schema schema;
  private volatile Projection projection;
  private RowMutator mutator;
  /** Pinned snapshot index → pin count; guarded by {@link #lock}. */
  private final TreeMap<Long, Integer> pins = new TreeMap<>();
  /** The newest entry whose effects are in memory; written under {@link #lock}. */
  private volatile long lastApplied;
  /** The newest entry {@link #markApplied} reported, and its term; guarded by {@link #lock}. */
  private long markedIndex;
  private long markedTerm;
  /** The oldest snapshot that still reads correctly; only grows. */
  private volatile long historyHorizon;
  /** Time → applied index, for the history kept; guarded by {@link #lock}. */
  private final AncientHistoryMark ancientHistory;
  private final HistoryRetention retention;
  private final AtomicLong liveRows = new AtomicLong();
  private long nextRowSetId;
  /** What the superblock on disk says; written by maintenance only. */
  volatile Superblock durable;
  final StoreMaintenance maintenance;
  private volatile Runnable flushListener = () -> {};

  private BlockTabletStore(String tabletId, Env env, TabletBlocks blocks, Path superblockFile,
      Superblock sb, List<RowSet> loaded, HistoryRetention retention) {
    this.tabletId = tabletId;
    this.retention = retention;
    this.ancientHistory = new AncientHistoryMark(retention);
    this.env = env;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
    this.durable = sb;
    this.schema = sb.schema();
    this.projection = new Projection(schema);
    this.mutator = new RowMutator(schema);
    this.lastApplied = sb.durableIndex();
    this.markedIndex = sb.durableIndex();
    this.markedTerm = sb.durableTerm();
    this.historyHorizon = sb.historyHorizon();
    this.liveRows.set(sb.liveRows());
    long maxId = -1;
    for (RowSet rs : loaded) {
      maxId = Math.max(maxId, rs.id());
    }
    this.nextRowSetId = maxId + 1;
    List<RowSet> all = new ArrayList<>(loaded);
    all.add(new RowSet(nextRowSetId++, List.of(new MemLayer(schema))));
    this.rowsets = List.copyOf(all);
    this.maintenance = new StoreMaintenance(this);
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
      for (List<io.nyala.tserver.fs.BlockId> ids : e.layers()) {
        layers.add(DiskLayer.open(blocks, ids));
      }
      layers.add(new MemLayer(sb.schema()));
      loaded.add(new RowSet(e.id(), layers));
    }
    return new BlockTabletStore(tabletId, env, blocks, superblockFile, sb, loaded, retention);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public List<RowError> apply(Schema writeSchema, List<RowOperations.Op> ops, long raftIndex) {
    synchronized (lock) {
      if (raftIndex <= lastApplied) {
        return List.of();
      }
      int[] map = RowMutator.columnMap(schema, writeSchema);
      List<RowError> errors = new ArrayList<>();
      long horizon = horizonLocked();
      for (int i = 0; i < ops.size(); i++) {
        try {
          applyOne(ops.get(i), map, raftIndex, horizon);
        } catch (NyalaException e) {
          errors.add(new RowError(i, e));
        }
      }
      historyHorizon = Math.max(historyHorizon, horizon);
      lastApplied = raftIndex;
      return errors;
    }
  }

  private void applyOne(RowOperations.Op op, int[] map, long raftIndex, long horizon) {
    RowMutator.TabletRow r = mutator.translate(op.type(), op.row(), map);
    byte[] key = KeyEncoder.encode(schema.keyColumns(), r.values());
    List<RowSet> all = rowsets;
    RowSet home = null;
    Version newest = null;
    // Newest rowsets first: the MemRowSet holds the recently inserted keys.
    for (int i = all.size() - 1; i >= 0 && home == null; i--) {
      newest = all.get(i).newest(key, projection);
      if (newest != null) {
        home = all.get(i);
      }
    }
    Object[] current = newest == null || newest.isTombstone() ? null : newest.row();
    Object[] next = mutator.mutate(op.type(), r, current);
    if (next == null) {
      return;
    }
    boolean deleted = next == RowMutator.DELETED;
    RowSet target = home != null ? home : all.get(all.size() - 1);
    target.active().put(key, new Version(raftIndex, deleted ? null : next), horizon,
        target.activeIsOldest());
    if (deleted) {
      liveRows.decrementAndGet();
    } else if (current == null) {
      liveRows.incrementAndGet();
    }
  }

  @Override
  public void alterSchema(Schema newSchema, long raftIndex) {
    synchronized (lock) {
      if (raftIndex <= lastApplied) {
        return;
      }
      if (newSchema.version() <= schema.version()) {
        lastApplied = raftIndex; // a replay of an alter the flushed state already holds
        return;
      }
      SchemaChange.between(schema, newSchema); // INVALID_ARGUMENT before anything changes
      schema = newSchema;
      projection = new Projection(newSchema);
      mutator = new RowMutator(newSchema);
      // Each in-memory layer keeps one schema: freeze them all, the new ones take the new schema.
      List<RowSet> next = new ArrayList<>();
      for (RowSet rs : rowsets) {
        next.add(rs.freeze(new MemLayer(newSchema)));
      }
      rowsets = List.copyOf(next);
      lastApplied = raftIndex;
    }
  }

  @Override
  public void markApplied(long term, long index) {
    synchronized (lock) {
      if (index > markedIndex) {
        markedIndex = index;
        markedTerm = term;
      }
      lastApplied = Math.max(lastApplied, index);
      lock.notifyAll();
    }
  }

  long horizonLocked() {
    long mark = ancientHistory.mark(lastApplied);
    return pins.isEmpty() ? mark : Math.min(pins.firstKey(), mark);
  }

  /** The horizon for dropping versions now; snapshots below it can no longer be pinned. */
  long gcHorizonLocked() {
    long horizon = horizonLocked();
    historyHorizon = Math.max(historyHorizon, horizon);
    return horizon;
  }

  /**
   * The state a flush writes, taken under the lock once {@link #markApplied} caught up with the
   * data (so the term of the flushed index is known): every rowset's active layer frozen.
   */
  record Frozen(long index, long term, Schema schema, long horizon, long liveRows,
      List<RowSet> rowsets) {}

  Frozen freezeAll() throws InterruptedException {
    synchronized (lock) {
      while (markedIndex < lastApplied) {
        // The apply thread reports the entry right after applying it; closing stops waiting.
        maintenance.checkOpen();
        lock.wait(100);
      }
      List<RowSet> next = new ArrayList<>();
      for (RowSet rs : rowsets) {
        next.add(rs.freeze(new MemLayer(schema)));
      }
      RowSet mrs = next.get(next.size() - 1);
      if (!mrs.isEmpty()) {
        // The old MemRowSet becomes a rowset of its own; new keys go to a fresh one.
        next.add(new RowSet(nextRowSetId++, List.of(new MemLayer(schema))));
      }
      rowsets = List.copyOf(next);
      long horizon = gcHorizonLocked();
      return new Frozen(lastApplied, markedTerm, schema, horizon, liveRows.get(), rowsets);
    }
  }

  List<RowSet> rowsets() {
    return rowsets;
  }

  /** Reads rows of any schema as rows of the current one; changes with it under {@link #lock}. */
  Projection projection() {
    return projection;
  }

  /** Installs a new rowset list built from the current one; caller holds {@link #lock}. */
  void setRowsetsLocked(List<RowSet> next) {
    rowsets = List.copyOf(next);
  }

  long newRowSetIdLocked() {
    return nextRowSetId++;
  }

  long historyHorizon() {
    return historyHorizon;
  }

  @Override
  public long lastAppliedIndex() {
    return lastApplied;
  }

  @Override
  public long durableIndex() {
    return durable.durableIndex();
  }

  /** What the superblock on disk says (durable index and term read together). No I/O. */
  public Superblock durableState() {
    return durable;
  }

  @Override
  public long durableTerm() {
    return durable.durableTerm();
  }

  @Override
  public long pinLatest(long atLeast) {
    synchronized (lock) {
      long snap = Math.max(atLeast, lastApplied);
      pins.merge(snap, 1, Integer::sum);
      return snap;
    }
  }

  @Override
  public void pin(long snapshot) {
    synchronized (lock) {
      // Checked against the mark now, not only what GC already dropped: whether a snapshot
      // reads must not depend on when a flush or compaction happened to run.
      gcHorizonLocked();
      if (snapshot < historyHorizon) {
        throw NyalaException.invalidArgument("tablet %s: snapshot scan index %d is earlier than "
            + "the ancient history mark %d (history is kept for --tablet_history_max_age_sec="
            + "%d s)", tabletId, snapshot, historyHorizon, retention.maxAgeSeconds());
      }
      pins.merge(snapshot, 1, Integer::sum);
    }
  }

  @Override
  public void unpin(long snapshot) {
    synchronized (lock) {
      pins.computeIfPresent(snapshot, (k, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Pinned snapshots (for tests and pages). */
  public int pinCount() {
    synchronized (lock) {
      return pins.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  @Override
  public ScanPage scan(ScanSpec spec, byte[] resumeAfter, int maxRows, long maxBytes) {
    return StoreScan.scan(this, spec, resumeAfter, maxRows, maxBytes);
  }

  @Override
  public long liveRowCount() {
    return liveRows.get();
  }

  @Override
  public void collectGarbage() {
    synchronized (lock) {
      long horizon = horizonLocked();
      // Only active layers: frozen ones may be being written by a flush right now.
      for (RowSet rs : rowsets) {
        rs.active().prune(horizon, rs.activeIsOldest());
      }
      historyHorizon = Math.max(historyHorizon, horizon);
    }
  }

  @Override
  public boolean flush() {
    boolean flushed = maintenance.flush();
    if (flushed) {
      flushListener.run();
    }
    return flushed;
  }

  @Override
  public void compact() {
    maintenance.compactAll();
  }

  /** Whether this store was closed (its replica hibernated, was deleted or replaced). */
  public boolean isClosed() {
    return maintenance.isClosed();
  }

  /** Runs the compaction {@code policy} picks now (the maintenance thread); null if none. */
  public CompactionResult compactIfNeeded(CompactionPolicy policy) {
    return maintenance.compact(policy, false);
  }

  @Override
  public long memoryBytes() {
    long n = 0;
    for (RowSet rs : rowsets) {
      n += rs.memBytes();
    }
    return n;
  }

  @Override
  public long oldestUnflushedWriteNanos() {
    long oldest = 0;
    for (RowSet rs : rowsets) {
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
    MergeCursor m = new MergeCursor(rowsets, null, true);
    int n = 0;
    while (m.next()) {
      n += m.allVersions(projection).length;
    }
    return n;
  }

  /** The rowsets and their layers, e.g. {@code 3:[disk(50 keys), mem(50 keys)]} (for debugging). */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    for (RowSet rs : rowsets) {
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
    for (RowSet rs : rowsets) {
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
