package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.rowset.DiskLayer;
import io.nyala.tserver.tablet.rowset.MemLayer;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The in-memory state of one {@link BlockTabletStore} and the one lock that guards it: the rowset
 * list with its schema, the applied index, the pinned snapshots and the history horizon
 * (docs/storage-engine.md). Writers (apply, alter, garbage collection, the rowset swaps of flush
 * and compaction) and pin bookkeeping are serialised here; the rowset list, schema and indexes
 * are also readable lock-free. The lock never leaves this class: flush, compaction and scans call
 * the methods below instead.
 *
 * <p>Garbage rule: a version may be dropped once it is older than the newest version at or
 * before the horizon {@code min(oldest pin, ancient history mark)}; the horizon only grows, and
 * a snapshot below it can no longer be pinned.
 */
public final class StoreState {
  private final String tabletId;
  /** Guards every field below that is not final, and the pins' consistency with the horizon. */
  private final Object lock = new Object();
  /** Rowsets; the last is the MemRowSet. Replaced whole under {@link #lock}, read lock-free. */
  private volatile List<RowSet> rowsets;
  /** The newest applied schema; changes with {@link #rowsets} under {@link #lock}. */
  private volatile Schema schema;
  /** Reads rows of any schema as rows of {@link #schema}; changes with it. */
  private volatile Projection projection;
  /** Writes rows in {@link #schema}; guarded by {@link #lock}. */
  private RowWriter writer;
  /** Pinned snapshot index → pin count; guarded by {@link #lock}. */
  private final TreeMap<Long, Integer> pins = new TreeMap<>();
  /** The newest entry whose effects are in memory; written under {@link #lock}. */
  private volatile long lastApplied;
  /** The newest entry {@link #markApplied} reported, and its term; guarded by {@link #lock}. */
  private long markedIndex;
  private long markedTerm;
  /** The oldest snapshot that still reads correctly; only grows; written under {@link #lock}. */
  private volatile long historyHorizon;
  /** Time → applied index, for the history kept; guarded by {@link #lock}. */
  private final AncientHistoryMark ancientHistory;
  private final HistoryRetention retention;
  /** Live rows at the newest state; changed under {@link #lock}, read lock-free. */
  private final AtomicLong liveRows = new AtomicLong();
  /** The id the next new rowset gets; guarded by {@link #lock}. */
  private long nextRowSetId;

  /**
   * The state at {@code sb}'s durable index: the rowsets {@code loaded} from it and a new empty
   * MemRowSet on top.
   */
  StoreState(String tabletId, Superblock sb, List<RowSet> loaded, HistoryRetention retention) {
    this.tabletId = tabletId;
    this.retention = retention;
    this.ancientHistory = new AncientHistoryMark(retention);
    this.schema = sb.schema();
    this.projection = new Projection(schema);
    this.writer = new RowWriter(schema, projection);
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
  }

  /** The current rowsets, the last being the MemRowSet (lock-free; may change right after). */
  public List<RowSet> rowsets() {
    return rowsets;
  }

  /** The newest applied schema. */
  public Schema schema() {
    return schema;
  }

  /** Reads rows of any schema as rows of the current one. */
  Projection projection() {
    return projection;
  }

  /** The newest entry whose effects are in memory. */
  long lastApplied() {
    return lastApplied;
  }

  /** The oldest snapshot that still reads correctly; what a superblock records. */
  public long historyHorizon() {
    return historyHorizon;
  }

  /** Live rows at the newest state. */
  long liveRows() {
    return liveRows.get();
  }

  /** See {@link TabletStore#apply}. */
  List<RowOpError> apply(Schema writeSchema, List<RowOperations.Op> ops, long raftIndex) {
    synchronized (lock) {
      if (raftIndex <= lastApplied) {
        return List.of();
      }
      int[] map = RowMutator.columnMap(schema, writeSchema);
      List<RowOpError> errors = new ArrayList<>();
      long horizon = horizonLocked();
      for (int i = 0; i < ops.size(); i++) {
        try {
          liveRows.addAndGet(writer.write(rowsets, ops.get(i), map, raftIndex, horizon));
        } catch (NyalaException e) {
          errors.add(new RowOpError(i, e));
        }
      }
      historyHorizon = Math.max(historyHorizon, horizon);
      lastApplied = raftIndex;
      return errors;
    }
  }

  /** See {@link TabletStore#alterSchema}. */
  void alterSchema(Schema newSchema, long raftIndex) {
    synchronized (lock) {
      if (raftIndex <= lastApplied) {
        return;
      }
      if (newSchema.version() <= schema.version()) {
        lastApplied = raftIndex; // a replay of an alter the flushed state already holds
        return;
      }
      TabletSchemaChange.between(schema, newSchema); // INVALID_ARGUMENT before anything changes
      schema = newSchema;
      projection = new Projection(newSchema);
      writer = new RowWriter(newSchema, projection);
      // Each in-memory layer keeps one schema: freeze them all, the new ones take the new schema.
      List<RowSet> next = new ArrayList<>();
      for (RowSet rs : rowsets) {
        next.add(rs.freeze(new MemLayer(newSchema)));
      }
      rowsets = List.copyOf(next);
      lastApplied = raftIndex;
    }
  }

  /** See {@link TabletStore#markApplied}; wakes a flush waiting in {@link #freeze}. */
  void markApplied(long term, long index) {
    synchronized (lock) {
      if (index > markedIndex) {
        markedIndex = index;
        markedTerm = term;
      }
      lastApplied = Math.max(lastApplied, index);
      lock.notifyAll();
    }
  }

  private long horizonLocked() {
    long mark = ancientHistory.mark(lastApplied);
    return pins.isEmpty() ? mark : Math.min(pins.firstKey(), mark);
  }

  private long gcHorizonLocked() {
    long horizon = horizonLocked();
    historyHorizon = Math.max(historyHorizon, horizon);
    return horizon;
  }

  /** The horizon for dropping versions now; snapshots below it can no longer be pinned. */
  public long gcHorizon() {
    synchronized (lock) {
      return gcHorizonLocked();
    }
  }

  /**
   * The state a flush writes, taken once {@link #markApplied} caught up with the data (so the
   * term of the flushed index is known): every rowset's active layer frozen.
   *
   * @param rowsets the rowset list right after the freeze
   */
  public record Frozen(long index, long term, Schema schema, long horizon, long liveRows,
      List<RowSet> rowsets) {}

  /**
   * Freezes every rowset's active layer at the last applied index, and turns a non-empty
   * MemRowSet into a rowset of its own under a fresh MemRowSet. Waits for the apply thread to
   * report that index; {@code checkOpen} throws to stop waiting when the store closed.
   */
  public Frozen freeze(Runnable checkOpen) throws InterruptedException {
    synchronized (lock) {
      while (markedIndex < lastApplied) {
        // The apply thread reports the entry right after applying it; closing stops waiting.
        checkOpen.run();
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

  /**
   * Builds the next rowset list from the current one. Runs under the state's lock, so it must be
   * quick and do no I/O; writes wait meanwhile.
   */
  @FunctionalInterface
  public interface RowSetSwap {
    /**
     * The rowsets to install instead of {@code current}; {@code schema} is the current schema
     * (for new in-memory layers) and {@code newRowSetId} hands out ids for new rowsets.
     */
    List<RowSet> next(List<RowSet> current, Schema schema, LongSupplier newRowSetId);
  }

  /** Replaces the rowset list by what {@code swap} builds from the current one, atomically. */
  public void swapRowsets(RowSetSwap swap) {
    synchronized (lock) {
      rowsets = List.copyOf(swap.next(rowsets, schema, () -> nextRowSetId++));
    }
  }

  /** Drops in-memory versions below the horizon (see {@link TabletStore#collectGarbage}). */
  void collectGarbage() {
    synchronized (lock) {
      long horizon = horizonLocked();
      // Only active layers: frozen ones may be being written by a flush right now.
      for (RowSet rs : rowsets) {
        rs.active().prune(horizon, rs.activeIsOldest());
      }
      historyHorizon = Math.max(historyHorizon, horizon);
    }
  }

  /** See {@link TabletStore#pinLatest}. */
  long pinLatest(long atLeast) {
    synchronized (lock) {
      long snap = Math.max(atLeast, lastApplied);
      pins.merge(snap, 1, Integer::sum);
      return snap;
    }
  }

  /** See {@link TabletStore#pin}. */
  void pin(long snapshot) {
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

  /** See {@link TabletStore#unpin}. */
  void unpin(long snapshot) {
    synchronized (lock) {
      pins.computeIfPresent(snapshot, (k, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Pinned snapshots, counting repeats. */
  int pinCount() {
    synchronized (lock) {
      return pins.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  /**
   * A consistent view for one scan page: rowsets and the projection of the schema they were
   * taken with, and their disk layers retained until {@link #close}.
   */
  record View(List<RowSet> rowsets, Projection projection, List<DiskLayer> held)
      implements AutoCloseable {
    @Override
    public void close() {
      held.forEach(DiskLayer::release);
    }
  }

  /** Takes a {@link View}; the caller closes it when the page is read. */
  View retainView() {
    List<DiskLayer> held = new ArrayList<>();
    synchronized (lock) {
      // Under the lock every disk layer of the current list still has the store's reference.
      for (RowSet rs : rowsets) {
        for (DiskLayer d : rs.diskLayers()) {
          if (d.retain()) {
            held.add(d);
          }
        }
      }
      return new View(rowsets, projection, held);
    }
  }
}
