package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.RowVersions.Version;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory MVCC store: a sorted map from memcomparable key to the key's retained versions.
 *
 * <p>Garbage rule: a version is dropped once no pinned snapshot and no future scan can see it,
 * i.e. everything older than the newest version at or before the history horizon
 * {@code min(oldest pin, last applied index)}. Snapshots below the horizon can no longer be read.
 */
public final class MemTabletStore implements TabletStore {
  /** Replaced (with {@link #mutator}) by an alter or a snapshot load, under {@link #lock}. */
  private volatile Schema schema;
  private volatile RowMutator mutator;
  /** Readers run lock-free; every structural change happens under {@link #lock}. */
  private final ConcurrentSkipListMap<byte[], RowVersions> rows =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
  /** Serialises writers (apply, GC, snapshot load) and pin bookkeeping. */
  private final Object lock = new Object();
  /** Pinned snapshot index → pin count; guarded by {@link #lock}. */
  private final TreeMap<Long, Integer> pins = new TreeMap<>();
  private volatile long lastApplied;
  /** The oldest snapshot that still reads correctly; only grows. */
  private volatile long historyHorizon;
  private final AtomicLong liveRows = new AtomicLong();

  public MemTabletStore(Schema schema) {
    this.schema = schema;
    this.mutator = new RowMutator(schema);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public List<RowError> apply(Schema writeSchema, List<RowOperations.Op> ops, long raftIndex) {
    int[] map = RowMutator.columnMap(schema, writeSchema);
    List<RowError> errors = new ArrayList<>();
    synchronized (lock) {
      long horizon = horizonLocked();
      for (int i = 0; i < ops.size(); i++) {
        try {
          applyOne(ops.get(i), map, raftIndex, horizon);
        } catch (NyalaException e) {
          errors.add(new RowError(i, e));
        }
      }
      historyHorizon = Math.max(historyHorizon, horizon);
      lastApplied = Math.max(lastApplied, raftIndex);
    }
    return errors;
  }

  private void applyOne(RowOperations.Op op, int[] map, long raftIndex, long horizon) {
    RowMutator.TabletRow r = mutator.translate(op.type(), op.row(), map);
    byte[] key = KeyEncoder.encode(schema.keyColumns(), r.values());
    RowVersions rv = rows.get(key);
    Version newest = rv == null ? null : rv.newest();
    Object[] current = newest == null || newest.isTombstone() ? null : newest.row();
    Object[] next = mutator.mutate(op.type(), r, current);
    if (next == null) {
      return;
    }
    boolean deleted = next == RowMutator.DELETED;
    Version v = new Version(raftIndex, deleted ? null : next);
    if (rv == null) {
      rows.put(key, new RowVersions(v));
    } else {
      rv.push(v);
      // The new version is above the horizon, so pruning never empties the list here.
      rv.prune(horizon);
    }
    if (deleted) {
      liveRows.decrementAndGet();
    } else if (current == null) {
      liveRows.incrementAndGet();
    }
  }

  private long horizonLocked() {
    return pins.isEmpty() ? lastApplied : Math.min(pins.firstKey(), lastApplied);
  }

  @Override
  public long lastAppliedIndex() {
    return lastApplied;
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
      if (snapshot < historyHorizon) {
        throw NyalaException.invalidArgument(
            "snapshot index %d is older than the tablet's history horizon %d",
            snapshot, historyHorizon);
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
  public void alterSchema(Schema newSchema, long raftIndex) {
    synchronized (lock) {
      if (newSchema.version() <= schema.version()) {
        lastApplied = Math.max(lastApplied, raftIndex);
        return;
      }
      SchemaChange change = SchemaChange.between(schema, newSchema);
      // Publish the new schema first: a scan that overlaps the rewrite sees a changed version
      // and fails cleanly instead of reading new rows with old column positions.
      schema = newSchema;
      mutator = new RowMutator(newSchema);
      for (RowVersions rv : rows.values()) {
        rv.convert(change);
      }
      lastApplied = Math.max(lastApplied, raftIndex);
    }
  }

  @Override
  public ScanPage scan(ScanSpec spec, byte[] resumeAfter, int maxRows) {
    if (maxRows < 1) {
      throw NyalaException.invalidArgument("a scan page needs room for at least one row");
    }
    Schema atStart = schema;
    checkScanSchema(spec, atStart);
    try {
      ScanPage page = scanPage(spec, resumeAfter, maxRows);
      checkScanSchema(spec, schema);
      return page;
    } catch (RuntimeException e) {
      checkScanSchema(spec, schema);
      throw e;
    }
  }

  private static void checkScanSchema(ScanSpec spec, Schema current) {
    if (spec.projection().version() != current.version()) {
      throw NyalaException.illegalState("the tablet's schema changed from version %d to %d "
          + "during the scan; start a new scan", spec.projection().version(), current.version());
    }
  }

  private ScanPage scanPage(ScanSpec spec, byte[] resumeAfter, int maxRows) {
    NavigableMap<byte[], RowVersions> view;
    if (resumeAfter != null) {
      view = rows.tailMap(resumeAfter, false);
    } else if (spec.startKey().length > 0) {
      view = rows.tailMap(spec.startKey(), true);
    } else {
      view = rows;
    }
    List<Object[]> out = new ArrayList<>(Math.min(maxRows, 1024));
    byte[] last = null;
    Iterator<Map.Entry<byte[], RowVersions>> it = view.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<byte[], RowVersions> e = it.next();
      if (spec.stopKey().length > 0 && KeyEncoder.compare(e.getKey(), spec.stopKey()) >= 0) {
        return new ScanPage(out, last, false);
      }
      Version v = e.getValue().visibleAt(spec.snapshot());
      if (v == null || v.isTombstone() || !matches(spec, v.row())) {
        continue;
      }
      out.add(project(spec, v.row()));
      last = e.getKey();
      if (out.size() == maxRows) {
        return new ScanPage(out, last, it.hasNext());
      }
    }
    return new ScanPage(out, last, false);
  }

  private boolean matches(ScanSpec spec, Object[] row) {
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

  @Override
  public long liveRowCount() {
    return liveRows.get();
  }

  /** Row versions held in memory (for tests: shows what GC kept). */
  public int versionCount() {
    int n = 0;
    for (RowVersions rv : rows.values()) {
      n += rv.all().length;
    }
    return n;
  }

  @Override
  public void collectGarbage() {
    synchronized (lock) {
      long horizon = horizonLocked();
      for (Map.Entry<byte[], RowVersions> e : rows.entrySet()) {
        if (!e.getValue().prune(horizon)) {
          rows.remove(e.getKey());
        }
      }
      historyHorizon = Math.max(historyHorizon, horizon);
    }
  }

  /** Its snapshot files go with the Raft group directory; only the memory is left to free. */
  @Override
  public void destroy() {
    synchronized (lock) {
      rows.clear();
      liveRows.set(0);
    }
  }

  @Override
  public void writeSnapshot(Env env, Path file) throws IOException {
    synchronized (lock) {
      StoreSnapshotFile.write(env, file, schema, lastApplied, historyHorizon, rows);
    }
  }

  @Override
  public void loadSnapshot(Env env, Path file) throws IOException {
    synchronized (lock) {
      StoreSnapshotFile.Contents c = StoreSnapshotFile.read(env, file);
      // The snapshot's own schema: entries after it (an alter among them) were written to it.
      schema = c.schema();
      mutator = new RowMutator(c.schema());
      rows.clear();
      rows.putAll(c.rows());
      long live = 0;
      for (RowVersions rv : rows.values()) {
        live += rv.newest().isTombstone() ? 0 : 1;
      }
      liveRows.set(live);
      lastApplied = c.lastApplied();
      historyHorizon = c.historyHorizon();
    }
  }
}
