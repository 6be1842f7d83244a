package io.nyala.client;

import io.nyala.client.locations.RemoteTablet;
import io.nyala.client.rpc.Deadline;
import io.nyala.common.NyalaException;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Builds scan tokens ({@link NyalaScanToken}): one per tablet that the predicates do not prune
 * (hash buckets and ranges, see docs/architecture.md, "Partitioning"), to be serialized and
 * scanned elsewhere, e.g. one task per tablet. Kudu's {@code KuduScanTokenBuilder}.
 *
 * <p>With READ_AT_SNAPSHOT the tokens of one build share a snapshot: {@link #build()} reads each
 * tablet's leader linearizably and gives every token its tablet's index, unless
 * {@link #snapshot(ScanSnapshot)} supplies them. The union of the tokens' scans is then a full
 * scan at that snapshot ({@link ScannerBuilder#snapshot}). What that guarantees across tablets
 * is in docs/architecture.md, "Consistent reads". Not thread-safe; build once.
 */
public final class NyalaScanTokenBuilder {
  private final NyalaTable table;
  private List<String> projectedColumns = List.of();
  private final List<ColumnPredicate> predicates = new ArrayList<>();
  private long limit = Long.MAX_VALUE;
  private ReadMode readMode = ReadMode.READ_LATEST;
  private ScanSnapshot snapshot;
  private long timeoutMs;

  NyalaScanTokenBuilder(NyalaTable table) {
    this.table = table;
    this.timeoutMs = table.getAsyncClient().getDefaultOperationTimeoutMs();
  }

  /**
   * Returns only these columns, in this order (default: all, in schema order).
   *
   * @param columns column names
   * @return this
   */
  public NyalaScanTokenBuilder setProjectedColumnNames(List<String> columns) {
    this.projectedColumns = List.copyOf(columns);
    return this;
  }

  /**
   * Returns only rows that pass a predicate; several must all pass. EQUAL or IN predicates on
   * hash columns, and predicates on range columns, leave out the tablets that cannot match.
   *
   * @param predicate e.g. {@code ColumnPredicate.comparison("host", Op.EQUAL, "a")}
   * @return this
   */
  public NyalaScanTokenBuilder addPredicate(ColumnPredicate predicate) {
    predicates.add(predicate);
    return this;
  }

  /**
   * Returns at most this many rows per token.
   *
   * @param rows at least 1
   * @return this
   */
  public NyalaScanTokenBuilder limit(long rows) {
    if (rows < 1) {
      throw NyalaException.invalidArgument("scan limit must be at least 1, got %d", rows);
    }
    this.limit = rows;
    return this;
  }

  /**
   * Sets the read mode of every token.
   *
   * @param mode READ_LATEST (default), READ_AT_SNAPSHOT (one snapshot for the build) or
   *     READ_YOUR_WRITES (the tokens carry this client's write positions)
   * @return this
   */
  public NyalaScanTokenBuilder readMode(ReadMode mode) {
    this.readMode = mode;
    return this;
  }

  /**
   * Reads at a given snapshot instead of one chosen by {@link #build()}, e.g. that of an earlier
   * build; sets READ_AT_SNAPSHOT. Every tablet that survives pruning must be in it.
   *
   * @param snapshot the Raft index of each tablet
   * @return this
   */
  public NyalaScanTokenBuilder snapshot(ScanSnapshot snapshot) {
    this.snapshot = snapshot;
    this.readMode = ReadMode.READ_AT_SNAPSHOT;
    return this;
  }

  /**
   * Sets the time allowed for each page of a token's scan and for {@link #build()}.
   *
   * @param millis positive; default the client's operation timeout
   * @return this
   */
  public NyalaScanTokenBuilder scanRequestTimeout(long millis) {
    if (millis < 1) {
      throw NyalaException.invalidArgument("scan timeout must be positive, got %d", millis);
    }
    this.timeoutMs = millis;
    return this;
  }

  /**
   * Builds the tokens, blocking.
   *
   * @return one token per tablet that may hold matching rows, in partition key order
   * @throws NyalaException INVALID_ARGUMENT naming an unknown column or a mistyped literal, or
   *     the error of finding the tablets or their snapshot
   */
  public List<NyalaScanToken> build() {
    return Sync.join(buildAsync());
  }

  /**
   * Builds the tokens.
   *
   * @return one token per tablet that may hold matching rows, in partition key order
   */
  public CompletableFuture<List<NyalaScanToken>> buildAsync() {
    Schema schema = table.getSchema();
    List<ColumnPredicate> bound = new ArrayList<>();
    try {
      for (String c : projectedColumns) {
        checkColumn(c, "projected");
      }
      for (ColumnPredicate p : predicates) {
        checkColumn(p.column(), "predicate");
        bound.add(p.bind(schema));
      }
    } catch (NyalaException e) {
      return CompletableFuture.failedFuture(e);
    }
    PartitionPruner pruner = PartitionPruner.create(schema, table.getPartitionSchema(), bound);
    ScanTokenTemplate template = new ScanTokenTemplate(table, projectedColumns, bound,
        limit == Long.MAX_VALUE ? 0 : limit, readMode, timeoutMs);
    Deadline deadline = Deadline.after(timeoutMs);
    return SnapshotChooser.tablets(table, deadline).thenCompose(all -> {
      List<RemoteTablet> kept = all.stream().filter(t -> !pruner.prunes(t)).toList();
      if (readMode != ReadMode.READ_AT_SNAPSHOT) {
        return CompletableFuture.completedFuture(template.tokens(kept, null));
      }
      CompletableFuture<ScanSnapshot> snap = snapshot != null
          ? CompletableFuture.completedFuture(snapshot)
          : SnapshotChooser.choose(table, kept, deadline);
      return snap.thenApply(s -> template.tokens(kept, s));
    });
  }

  private void checkColumn(String column, String what) {
    if (!table.getSchema().hasColumn(column)) {
      throw NyalaException.invalidArgument("%s column '%s' is not in table '%s'", what, column,
          table.getName());
    }
  }
}
