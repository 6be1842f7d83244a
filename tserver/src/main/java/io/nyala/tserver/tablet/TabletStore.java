package io.nyala.tserver.tablet;

import io.nyala.common.env.Env;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A tablet's rows, versioned by the Raft index that wrote them. The seam between consensus and
 * storage: today an in-memory store, later the block-based engine (DESIGN §7).
 *
 * <p>Threading: {@link #apply} is called by one thread at a time (the division's apply thread),
 * in increasing index order; scans and pins may run concurrently from any thread.
 */
public interface TabletStore {
  Schema schema();

  /**
   * Applies a batch of row operations written against {@code writeSchema} (a subset of the
   * tablet's columns, same types) as of {@code raftIndex}. Returns the rows that failed; the
   * others are applied. Deterministic: the same batch on the same state gives the same result.
   */
  List<RowError> apply(Schema writeSchema, List<RowOperations.Op> ops, long raftIndex);

  /**
   * Changes the schema as of {@code raftIndex} (an ALTER_SCHEMA entry): columns are matched by
   * id ({@link SchemaChange}), added columns read their default (or null) in existing rows,
   * dropped columns disappear, renamed ones keep their values. A schema whose version is not
   * newer than {@link #schema()}'s is ignored (replay). Called on the apply thread like
   * {@link #apply}; INVALID_ARGUMENT (and no change) if the change is not allowed.
   */
  void alterSchema(Schema newSchema, long raftIndex);

  /** The Raft index of the last applied batch (or loaded snapshot). */
  long lastAppliedIndex();

  /** Pins the newest state, at least {@code atLeast}; returns the pinned snapshot index. */
  long pinLatest(long atLeast);

  /** Pins {@code snapshot}; INVALID_ARGUMENT if versions it needs were already dropped. */
  void pin(long snapshot);

  /** Releases a pin; versions only it needed become collectable. */
  void unpin(long snapshot);

  /** Reads up to {@code maxRows} rows after {@code resumeAfter} (exclusive; null = from the start). */
  ScanPage scan(ScanSpec spec, byte[] resumeAfter, int maxRows);

  /** Live rows at the newest state. */
  long liveRowCount();

  /** Drops row versions no pinned or future snapshot can see. */
  void collectGarbage();

  /** Writes every retained row version to {@code file} (created or replaced). */
  void writeSnapshot(Env env, Path file) throws IOException;

  /** Replaces this store's contents with a snapshot written by {@link #writeSnapshot}. */
  void loadSnapshot(Env env, Path file) throws IOException;

  /**
   * Deletes everything this store keeps outside the tablet's Raft group directory (for the
   * block-based engine: its blocks and superblock), because the tablet is being deleted. Called
   * once, after the Raft group was removed (so nothing applies or snapshots any more) and
   * after the tablet's metadata was marked TABLET_DATA_DELETING, before that metadata goes.
   * Must be idempotent. A crash before it finishes leaves data no metadata refers to: the store
   * implementation must find and delete such orphans at the next start (DESIGN §7), since no
   * store is opened for a tablet whose delete is being finished.
   *
   * <p>The in-memory store keeps nothing outside the group directory (its snapshot files live
   * there), so its implementation only drops its rows.
   */
  default void destroy() throws IOException {}
}
