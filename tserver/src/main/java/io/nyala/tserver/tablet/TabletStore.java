package io.nyala.tserver.tablet;

import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import java.util.List;

/**
 * A tablet's rows, versioned by the Raft index that wrote them: the seam between consensus and
 * storage (docs/architecture.md, "Tablet storage"). The implementation is {@link BlockTabletStore}.
 *
 * <p>Threading: {@link #apply}, {@link #alterSchema} and {@link #markApplied} are called by one
 * thread at a time (the division's apply thread), in increasing index order; scans, pins and
 * maintenance ({@link #flush}, {@link #compact}) may run concurrently from any thread.
 *
 * <p>Durability: only {@link #flush} makes data durable. After a restart the store holds exactly
 * the entries up to {@link #durableIndex()}; the owner replays the Raft log after it. Every
 * mutating call ignores an entry whose index the store already holds, so replay is idempotent.
 */
public interface TabletStore {
  /** The current schema (the newest applied ALTER). */
  Schema schema();

  /**
   * Applies a batch of row operations written against {@code writeSchema} (a subset of the
   * tablet's columns, same types) as of {@code raftIndex}. Returns the rows that failed; the
   * others are applied. Deterministic: the same batch on the same state gives the same result.
   * A batch at or below {@link #lastAppliedIndex()} is ignored (returns no errors).
   */
  List<RowOpError> apply(Schema writeSchema, List<RowOperations.Op> ops, long raftIndex);

  /**
   * Switches to {@code newSchema} as of {@code raftIndex} (an ALTER_SCHEMA entry): later applies
   * and scans use it; rows written before read through it (columns matched by id, see
   * {@link TabletSchemaChange}; added columns read their default, dropped ones are ignored, renamed
   * ones keep their values). Does no I/O. Ignored at or below {@link #lastAppliedIndex()}; a
   * schema whose version is not newer than {@link #schema()}'s changes nothing (replay) but
   * counts as applied. INVALID_ARGUMENT (and no change) if the change is not allowed.
   */
  void alterSchema(Schema newSchema, long raftIndex);

  /**
   * Records that the entry at {@code index} of {@code term} is fully applied (also for entries
   * without row operations: configuration, no-ops). The term of the last flushed entry comes from
   * here, so the owner must call it after every entry.
   */
  void markApplied(long term, long index);

  /** The Raft index of the last applied entry (or of the flushed state loaded at open). */
  long lastAppliedIndex();

  /** The index up to which everything is on disk (0 = nothing flushed yet). No I/O. */
  long durableIndex();

  /** The term of the entry at {@link #durableIndex()} (0 = nothing flushed yet). */
  long durableTerm();

  /** Pins the newest state, at least {@code atLeast}; returns the pinned snapshot index. */
  long pinLatest(long atLeast);

  /**
   * Pins {@code snapshot}; INVALID_ARGUMENT if it is older than the history the store keeps (the
   * ancient history mark, see {@link HistoryRetention}): its versions may be gone.
   */
  void pin(long snapshot);

  /** Releases a pin; versions only it needed become collectable. */
  void unpin(long snapshot);

  /**
   * Reads up to {@code maxRows} rows after {@code resumeAfter} (exclusive; null = from the start).
   * The pages of one scan may straddle {@link #alterSchema}: the spec's columns are read by id,
   * under their names in {@link TabletScanSpec#schema()}; ILLEGAL_STATE if one it reads
   * (projected or in a predicate) has been dropped since.
   */
  default ScanPage scan(TabletScanSpec spec, byte[] resumeAfter, int maxRows) {
    return scan(spec, resumeAfter, maxRows, Long.MAX_VALUE);
  }

  /**
   * As {@link #scan(TabletScanSpec, byte[], int)}, also ending the page after the row whose encoded
   * size (in the response's row block) brings the page to {@code maxBytes}: a page holds at
   * least one row, and at most {@code maxBytes} plus one row.
   */
  ScanPage scan(TabletScanSpec spec, byte[] resumeAfter, int maxRows, long maxBytes);

  /** Live rows at the newest state. */
  long liveRowCount();

  /** Bytes of the flushed layers the store reads now (lock-free; may change right after). */
  long onDiskBytes();

  /** Drops in-memory row versions no pinned or future snapshot can see. */
  void collectGarbage();

  /**
   * Writes everything in memory to disk in the background of the caller (never on the apply
   * thread: it does I/O), then the superblock; returns false if there was nothing to write.
   */
  boolean flush();

  /**
   * Compacts on-disk rowsets and their deltas, dropping unneeded versions, until nothing more
   * can be merged within the default compaction budget.
   */
  void compact();

  /** Bytes held by in-memory layers (what a flush would write). */
  long memoryBytes();

  /** System.nanoTime() of the oldest unflushed write, or 0 if nothing is unflushed. */
  long oldestUnflushedWriteNanos();

  /** Runs {@code r} after each successful flush (the owner asks Ratis for a snapshot). */
  void onFlushed(Runnable r);

  /** Stops maintenance; data stays on disk. Idempotent. */
  void close();

  /**
   * Deletes all the tablet's blocks (one deletion transaction) and its superblock, because the
   * tablet is being deleted: called after the Raft group was removed (nothing applies or
   * flushes any more) and the metadata was marked TABLET_DATA_DELETING. Idempotent; a crash
   * before it finishes leaves blocks no superblock lists, which the startup GC deletes.
   */
  void destroy();
}
