package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Configures a scan of one table: which columns, which rows (predicates, primary key bounds),
 * how many, and how to page. Not thread-safe; build once per scan.
 */
public final class ScannerBuilder {
  private final NyalaTable table;
  private List<String> projectedColumns = List.of();
  private final List<ColumnPredicate> predicates = new ArrayList<>();
  private long limit = Long.MAX_VALUE;
  private int batchSizeRows;
  private long batchSizeBytes;
  private boolean prefetching;
  private byte[] startKey = new byte[0];
  private byte[] stopKey = new byte[0];
  private ReadMode readMode = ReadMode.READ_LATEST;
  private Map<String, Long> snapshot = Map.of();
  private long timeoutMs;

  ScannerBuilder(NyalaTable table) {
    this.table = table;
    this.timeoutMs = table.getAsyncClient().getDefaultOperationTimeoutMs();
  }

  /**
   * Returns only these columns, in this order (default: all, in schema order).
   *
   * @param columns column names
   * @return this
   */
  public ScannerBuilder setProjectedColumnNames(List<String> columns) {
    this.projectedColumns = List.copyOf(columns);
    return this;
  }

  /**
   * Returns only rows that pass a predicate; several predicates must all pass. The tablet
   * servers evaluate them; EQUAL or IN predicates on every column of a hash dimension also skip
   * the tablets that cannot hold matching rows.
   *
   * @param predicate e.g. {@code ColumnPredicate.comparison("host", Op.EQUAL, "a")}
   * @return this
   */
  public ScannerBuilder addPredicate(ColumnPredicate predicate) {
    predicates.add(predicate);
    return this;
  }

  /**
   * Returns at most this many rows in all.
   *
   * @param rows at least 1
   * @return this
   */
  public ScannerBuilder limit(long rows) {
    if (rows < 1) {
      throw NyalaException.invalidArgument("scan limit must be at least 1, got %d", rows);
    }
    this.limit = rows;
    return this;
  }

  /**
   * Asks for pages of this many rows.
   *
   * @param rows at least 1; by default the server picks
   * @return this
   */
  public ScannerBuilder batchSizeRows(int rows) {
    if (rows < 1) {
      throw NyalaException.invalidArgument("batch size must be at least 1 row, got %d", rows);
    }
    this.batchSizeRows = rows;
    return this;
  }

  /**
   * Asks for pages of at most this many bytes of row data: a page ends with the row that reaches
   * it, so it holds at least one row (the server's default is 1 MiB).
   *
   * @param bytes at least 1; by default the server picks
   * @return this
   */
  public ScannerBuilder batchSizeBytes(long bytes) {
    if (bytes < 1) {
      throw NyalaException.invalidArgument("batch size must be at least 1 byte, got %d", bytes);
    }
    this.batchSizeBytes = bytes;
    return this;
  }

  /**
   * Whether to ask for the next page as soon as one arrives, so that the servers build it while
   * the application reads the current one (default: off; see {@link AsyncNyalaScanner}).
   *
   * @param on false to fetch each page only when asked for
   * @return this
   */
  public ScannerBuilder prefetching(boolean on) {
    this.prefetching = on;
    return this;
  }

  /**
   * Returns only rows whose primary key is at least this row's.
   *
   * @param row a row of this table with every key column set
   * @return this
   */
  public ScannerBuilder lowerBoundPrimaryKey(PartialRow row) {
    this.startKey = encodeKey(row, "lower bound");
    return this;
  }

  /**
   * Returns only rows whose primary key is below this row's.
   *
   * @param row a row of this table with every key column set
   * @return this
   */
  public ScannerBuilder exclusiveUpperBoundPrimaryKey(PartialRow row) {
    this.stopKey = encodeKey(row, "upper bound");
    return this;
  }

  private byte[] encodeKey(PartialRow row, String what) {
    Schema schema = table.getSchema();
    if (!row.schema().keyColumns().equals(schema.keyColumns())) {
      throw NyalaException.invalidArgument("scan %s is a row of another schema %s, not of table "
          + "'%s' %s", what, row.schema(), table.getName(), schema);
    }
    row.checkKeySet();
    return KeyEncoder.encode(schema.keyColumns(), row.valuesUnsafe());
  }

  /**
   * Sets the read mode.
   *
   * @param mode READ_LATEST (default), READ_AT_SNAPSHOT or READ_YOUR_WRITES
   * @return this
   */
  public ScannerBuilder readMode(ReadMode mode) {
    this.readMode = mode;
    return this;
  }

  /**
   * Reads every tablet at the Raft index a snapshot gives it, e.g. the snapshot shared by a
   * build of scan tokens ({@link ScanSnapshot#of}), so that this scan returns exactly the union
   * of those tokens' scans. Sets READ_AT_SNAPSHOT. A tablet the snapshot does not name fails
   * the scan with INVALID_ARGUMENT. See docs/architecture.md, "Consistent reads".
   *
   * @param snapshot the Raft index of each tablet
   * @return this
   */
  public ScannerBuilder snapshot(ScanSnapshot snapshot) {
    this.snapshot = snapshot.indexes();
    this.readMode = ReadMode.READ_AT_SNAPSHOT;
    return this;
  }

  /**
   * Sets the time allowed for each page, retries included.
   *
   * @param millis positive; default the client's operation timeout
   * @return this
   */
  public ScannerBuilder scanRequestTimeout(long millis) {
    if (millis < 1) {
      throw NyalaException.invalidArgument("scan timeout must be positive, got %d", millis);
    }
    this.timeoutMs = millis;
    return this;
  }

  /**
   * Builds a blocking scanner.
   *
   * @return the scanner
   * @throws NyalaException INVALID_ARGUMENT naming an unknown column or a mistyped literal
   */
  public NyalaScanner build() {
    return new NyalaScanner(buildAsync());
  }

  /**
   * Builds an asynchronous scanner.
   *
   * @return the scanner
   * @throws NyalaException INVALID_ARGUMENT naming an unknown column or a mistyped literal
   */
  public AsyncNyalaScanner buildAsync() {
    Schema schema = table.getSchema();
    for (String c : projectedColumns) {
      checkColumn(c, "projected");
    }
    List<ColumnPredicate> bound = new ArrayList<>();
    List<ColumnPredicatePB> pbs = new ArrayList<>();
    for (ColumnPredicate p : predicates) {
      checkColumn(p.column(), "predicate");
      ColumnPredicate b = p.bind(schema);
      bound.add(b);
      pbs.add(b.toPb(schema));
    }
    ScanSpec spec = new ScanSpec(projectedColumns, schema.project(projectedColumns),
        List.copyOf(bound), List.copyOf(pbs), startKey, stopKey, limit, batchSizeRows, readMode,
        timeoutMs, batchSizeBytes, readMode == ReadMode.READ_AT_SNAPSHOT ? snapshot : Map.of(),
        Map.of(), new byte[0], new byte[0]);
    return new AsyncNyalaScanner(table, spec).prefetching(prefetching);
  }

  private void checkColumn(String column, String what) {
    if (!table.getSchema().hasColumn(column)) {
      throw NyalaException.invalidArgument("%s column '%s' is not in table '%s'", what, column,
          table.getName());
    }
  }
}
