package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.partition.RangeBounds;
import io.nyala.common.partition.RangeSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * How to create a table: its hash and range partitioning and replication factor, as Kudu's
 * (docs/architecture.md, "Partitioning"). Without partitioning the table has a single tablet;
 * each {@link #addHashPartitions} call adds a hash dimension; {@link #setRangePartitionColumns}
 * adds range partitioning, whose ranges come from {@link #addRangePartition} and
 * {@link #addSplitRow}. The table gets one tablet per combination of buckets and range.
 */
public final class CreateTableOptions {
  /** A range bound or split row as given: a row of the table's schema, checked at create. */
  private record Bounds(PartialRow lower, PartialRow upper) {}

  private final List<PartitionSchema.HashDimension> dimensions = new ArrayList<>();
  private final List<String> rangeColumns = new ArrayList<>();
  private final List<Bounds> rangeBounds = new ArrayList<>();
  private final List<PartialRow> splitRows = new ArrayList<>();
  private int numReplicas;

  /** Options for an unpartitioned table with the master's default replication. */
  public CreateTableOptions() {}

  /**
   * Adds a hash dimension with seed 0.
   *
   * @param columns key columns to hash, at least one
   * @param buckets how many buckets, at least 2
   * @return this
   */
  public CreateTableOptions addHashPartitions(List<String> columns, int buckets) {
    return addHashPartitions(columns, buckets, 0);
  }

  /**
   * Adds a hash dimension.
   *
   * @param columns key columns to hash, at least one
   * @param buckets how many buckets, at least 2
   * @param seed the hash seed
   * @return this
   */
  public CreateTableOptions addHashPartitions(List<String> columns, int buckets, int seed) {
    dimensions.add(new PartitionSchema.HashDimension(columns, buckets, seed));
    return this;
  }

  /**
   * Range-partitions the table on some key columns: a row's range key is the key encoding of
   * these columns in this order, and each range partition holds the rows whose range key lies
   * in it. Without {@link #addRangePartition} or {@link #addSplitRow} there is one unbounded
   * range. A table with a range per day on a time column can later drop whole days
   * ({@link AlterTableOptions#dropRangePartition}).
   *
   * @param columns distinct primary key columns, at least one
   * @return this
   * @throws NyalaException INVALID_ARGUMENT if {@code columns} is empty
   */
  public CreateTableOptions setRangePartitionColumns(List<String> columns) {
    if (columns == null || columns.isEmpty()) {
      throw NyalaException.invalidArgument("range partitioning needs at least one column");
    }
    rangeColumns.clear();
    rangeColumns.addAll(columns);
    return this;
  }

  /**
   * Adds a range partition from {@code lower} (inclusive) to {@code upper} (exclusive). Each
   * bound is a row of the table's schema ({@code schema.newPartialRow()}) that sets every range
   * column, or none for unbounded on that side. Ranges must not overlap; the gaps between them
   * hold no rows (a write there fails with "no range partition covers ...") until
   * {@link AlterTableOptions#addRangePartition} adds a range.
   *
   * @param lower the inclusive lower bound
   * @param upper the exclusive upper bound
   * @return this
   */
  public CreateTableOptions addRangePartition(PartialRow lower, PartialRow upper) {
    rangeBounds.add(new Bounds(lower, upper));
    return this;
  }

  /**
   * Adds a split row: the range partition that contains it is split in two at it (after the
   * ranges of {@link #addRangePartition} are made). The row sets every range column, and must
   * lie strictly inside a range.
   *
   * @param row a row of the table's schema setting every range column
   * @return this
   */
  public CreateTableOptions addSplitRow(PartialRow row) {
    splitRows.add(row);
    return this;
  }

  /**
   * Sets the number of replicas of each tablet.
   *
   * @param n the replication factor (1 or more, odd for a Raft majority); 0 = master's default
   * @return this
   */
  public CreateTableOptions setNumReplicas(int n) {
    if (n < 0) {
      throw NyalaException.invalidArgument("number of replicas must not be negative, got %d", n);
    }
    this.numReplicas = n;
    return this;
  }

  /** @return the replication factor, 0 for the master's default */
  public int getNumReplicas() {
    return numReplicas;
  }

  /**
   * The partitioning these options describe over a schema; checks the columns.
   *
   * @param schema the table's schema
   * @return the partition schema
   * @throws NyalaException INVALID_ARGUMENT naming a column not in the key
   */
  PartitionSchema partitionSchema(Schema schema) {
    if (rangeColumns.isEmpty()) {
      if (!rangeBounds.isEmpty() || !splitRows.isEmpty()) {
        throw NyalaException.invalidArgument(
            "range partitions and split rows need setRangePartitionColumns first");
      }
      return new PartitionSchema(dimensions, schema);
    }
    RangeSchema rs = new RangeSchema(rangeColumns, schema);
    List<RangeBounds> ranges = new ArrayList<>();
    for (Bounds b : rangeBounds) {
      ranges.add(new RangeBounds(rs.encodeBound(checked(b.lower(), schema, "lower bound"),
          "lower bound"), rs.encodeBound(checked(b.upper(), schema, "upper bound"),
          "upper bound")));
    }
    if (ranges.isEmpty()) {
      ranges.add(RangeBounds.UNBOUNDED);
    }
    List<byte[]> splits = new ArrayList<>();
    for (PartialRow r : splitRows) {
      splits.add(rs.encodeBound(checked(r, schema, "split row"), "split row"));
    }
    List<RangeBounds> split = rs.split(rs.sortedDisjoint(ranges), splits);
    return new PartitionSchema(dimensions, rangeColumns, split, schema);
  }

  private static PartialRow checked(PartialRow row, Schema schema, String what) {
    if (row == null) {
      throw NyalaException.invalidArgument("%s must not be null (use an empty row for "
          + "unbounded)", what);
    }
    if (!row.schema().equals(schema)) {
      throw NyalaException.invalidArgument("%s %s is not a row of the table's schema", what, row);
    }
    return row;
  }
}
