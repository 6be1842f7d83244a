package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.tablet.RowOpError;
import io.nyala.tserver.tablet.ScanPage;
import io.nyala.tserver.tablet.TabletScanSpec;
import io.nyala.tserver.tablet.TabletStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A deterministic in-memory {@link TabletStore} for consensus tests: rows keyed by the string of
 * their first column, the row semantics of {@code RowMutator} reduced to presence (INSERT of a
 * present key is ALREADY_PRESENT, UPDATE and DELETE of an absent one NOT_FOUND, the IGNORE
 * variants never fail), and {@link #flush} making everything applied durable at once. Scans are
 * not supported: the state machine never scans. Not thread-safe; tests call it from one thread.
 */
final class FakeTabletStore implements TabletStore {
  private Schema schema;
  /** Key → the row's values, as of the newest applied entry. */
  private final TreeMap<String, Object[]> rows = new TreeMap<>();
  private long lastApplied;
  private long lastTerm;
  private long durableIndex;
  private long durableTerm;
  private int flushes;
  private boolean closed;
  private Runnable onFlushed = () -> {};

  FakeTabletStore(Schema schema) {
    this.schema = schema;
  }

  /** A store opened at a flushed state: everything up to {@code index} of {@code term}. */
  static FakeTabletStore flushedAt(Schema schema, long term, long index) {
    FakeTabletStore s = new FakeTabletStore(schema);
    s.lastApplied = index;
    s.lastTerm = term;
    s.durableIndex = index;
    s.durableTerm = term;
    return s;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public List<RowOpError> apply(Schema writeSchema, List<RowOperations.Op> ops, long raftIndex) {
    if (raftIndex <= lastApplied) {
      return List.of();
    }
    List<RowOpError> errors = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      RowOperations.Op op = ops.get(i);
      String key = String.valueOf(op.row().get(0));
      NyalaException e = applyOne(op, key);
      if (e != null) {
        errors.add(new RowOpError(i, e));
      }
    }
    lastApplied = raftIndex;
    return errors;
  }

  /** One row: null if applied, or why not. */
  private NyalaException applyOne(RowOperations.Op op, String key) {
    boolean present = rows.containsKey(key);
    RowOpType t = op.type();
    boolean insert = t == RowOpType.INSERT || t == RowOpType.INSERT_IGNORE;
    if (insert && present) {
      return t == RowOpType.INSERT
          ? new NyalaException(StatusCode.ALREADY_PRESENT, "key " + key + " already present")
          : null;
    }
    boolean needsRow = !insert && t != RowOpType.UPSERT;
    if (needsRow && !present) {
      return t == RowOpType.UPDATE || t == RowOpType.DELETE
          ? NyalaException.notFound("key %s not found", key) : null;
    }
    if (t == RowOpType.DELETE || t == RowOpType.DELETE_IGNORE) {
      rows.remove(key);
    } else {
      rows.put(key, op.row().valuesUnsafe().clone());
    }
    return null;
  }

  @Override
  public void alterSchema(Schema newSchema, long raftIndex) {
    if (raftIndex <= lastApplied) {
      return;
    }
    if (newSchema.version() > schema.version()) {
      schema = newSchema;
    }
    lastApplied = raftIndex;
  }

  @Override
  public void markApplied(long term, long index) {
    if (index >= lastApplied) {
      lastApplied = index;
      lastTerm = term;
    }
  }

  @Override
  public long lastAppliedIndex() {
    return lastApplied;
  }

  @Override
  public long durableIndex() {
    return durableIndex;
  }

  @Override
  public long durableTerm() {
    return durableTerm;
  }

  @Override
  public long pinLatest(long atLeast) {
    return Math.max(atLeast, lastApplied);
  }

  @Override
  public void pin(long snapshot) {}

  @Override
  public void unpin(long snapshot) {}

  @Override
  public ScanPage scan(TabletScanSpec spec, byte[] resumeAfter, int maxRows, long maxBytes) {
    throw new UnsupportedOperationException("the fake store does not scan");
  }

  @Override
  public long liveRowCount() {
    return rows.size();
  }

  @Override
  public long onDiskBytes() {
    return 0;
  }

  /** The rows by key, as of the newest applied entry. */
  Map<String, Object[]> rows() {
    return rows;
  }

  @Override
  public void collectGarbage() {}

  /** Makes everything applied durable; false (and no hook) if nothing new was applied. */
  @Override
  public boolean flush() {
    if (lastApplied == durableIndex) {
      return false;
    }
    durableIndex = lastApplied;
    durableTerm = lastTerm;
    flushes++;
    onFlushed.run();
    return true;
  }

  /** How many flushes wrote something. */
  int flushes() {
    return flushes;
  }

  @Override
  public void compact() {}

  @Override
  public long memoryBytes() {
    return 0;
  }

  @Override
  public long oldestUnflushedWriteNanos() {
    return 0;
  }

  @Override
  public void onFlushed(Runnable r) {
    this.onFlushed = r;
  }

  @Override
  public void close() {
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }

  @Override
  public void destroy() {
    rows.clear();
  }
}
