package io.nyala.common.partition;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.HashBucketSchemaPB;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.PartitionSchemaPB;
import io.nyala.common.proto.RangeBoundsPB;
import io.nyala.common.row.ByteWriter;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How rows map to tablets (docs/architecture.md, "Partitioning"): zero or more hash dimensions,
 * each hashing some key columns into a number of buckets, then optionally range columns with a
 * list of disjoint ranges. A row's partition key is the big-endian int32 bucket of each
 * dimension in turn, then the key encoding of its range columns; tablets own contiguous
 * partition key ranges and sort by them. Each combination of buckets and range is a tablet.
 * Without range columns the partition key is the buckets alone, as before ranges existed; no
 * dimension and no range columns = one tablet. Immutable.
 */
public final class PartitionSchema {
  /**
   * One hash dimension.
   *
   * @param columns the primary key columns hashed together, at least one
   * @param numBuckets how many buckets the hash falls into, at least 2
   * @param seed the hash's seed
   */
  public record HashDimension(List<String> columns, int numBuckets, int seed) {
    /** Copies the columns and checks the counts; INVALID_ARGUMENT naming the bad value. */
    public HashDimension {
      columns = List.copyOf(columns);
      if (columns.isEmpty()) {
        throw NyalaException.invalidArgument("hash partitioning needs at least one column");
      }
      if (numBuckets < 2) {
        throw NyalaException.invalidArgument(
            "hash partitioning needs at least 2 buckets, got %d", numBuckets);
      }
    }
  }

  private final List<HashDimension> dimensions;
  /** Per dimension: the key column indexes it hashes. */
  private final int[][] columnIndexes;
  private final List<List<ColumnSchema>> columnSchemas;

  private final RangeSchema rangeSchema;
  /** Sorted, disjoint; empty when there are no range columns. */
  private final List<RangeBounds> ranges;

  /**
   * Hash partitioning only.
   *
   * @param dimensions the hash dimensions, in partition key order; none for one tablet
   * @param schema the table's schema
   * @throws NyalaException INVALID_ARGUMENT naming a column that is not a primary key column of
   *     {@code schema} or is hashed twice
   */
  public PartitionSchema(List<HashDimension> dimensions, Schema schema) {
    this(dimensions, List.of(), List.of(), schema);
  }

  /**
   * Hash and range partitioning.
   *
   * @param dimensions the hash dimensions
   * @param rangeColumns the range columns, empty for none
   * @param ranges the range partitions, disjoint, in any order; ignored without range columns
   * @param schema the table's schema
   * @throws NyalaException INVALID_ARGUMENT naming a bad column or overlapping ranges
   */
  public PartitionSchema(List<HashDimension> dimensions, List<String> rangeColumns,
      List<RangeBounds> ranges, Schema schema) {
    this.dimensions = List.copyOf(dimensions);
    this.columnIndexes = new int[dimensions.size()][];
    this.columnSchemas = new ArrayList<>();
    this.rangeSchema = new RangeSchema(rangeColumns, schema);
    this.ranges = rangeSchema.isEmpty() ? List.of()
        : List.copyOf(rangeSchema.sortedDisjoint(ranges));
    Set<String> used = new HashSet<>();
    for (int d = 0; d < dimensions.size(); d++) {
      HashDimension dim = dimensions.get(d);
      columnIndexes[d] = new int[dim.columns().size()];
      List<ColumnSchema> cs = new ArrayList<>();
      for (int i = 0; i < dim.columns().size(); i++) {
        String name = dim.columns().get(i);
        if (!schema.hasColumn(name)) {
          throw NyalaException.invalidArgument(
              "hash partition column '%s' is not in the schema", name);
        }
        int idx = schema.columnIndex(name);
        if (!schema.column(idx).key()) {
          throw NyalaException.invalidArgument(
              "hash partition column '%s' is not a primary key column", name);
        }
        if (!used.add(name)) {
          throw NyalaException.invalidArgument(
              "hash partition column '%s' is used twice", name);
        }
        columnIndexes[d][i] = idx;
        cs.add(schema.column(idx));
      }
      columnSchemas.add(cs);
    }
  }

  /**
   * No partitioning: a single tablet.
   *
   * @param schema the table's schema
   * @return a partition schema of no dimension
   */
  public static PartitionSchema unpartitioned(Schema schema) {
    return new PartitionSchema(List.of(), schema);
  }

  /**
   * The hash dimensions, in partition key order.
   *
   * @return an unmodifiable list, empty for a single tablet
   */
  public List<HashDimension> dimensions() {
    return dimensions;
  }

  /**
   * The range columns.
   *
   * @return the range columns (empty: hash partitioning only)
   */
  public RangeSchema rangeSchema() {
    return rangeSchema;
  }

  /**
   * The range partitions.
   *
   * @return the ranges, sorted by lower bound; empty without range columns
   */
  public List<RangeBounds> ranges() {
    return ranges;
  }

  /**
   * The number of tablets: the product of the dimensions' bucket counts, times the number of
   * ranges when the table has range columns.
   *
   * @return the count, 1 with no dimension and no range columns
   */
  public int numTablets() {
    int n = rangeSchema.isEmpty() ? 1 : ranges.size();
    for (HashDimension d : dimensions) {
      n = Math.multiplyExact(n, d.numBuckets());
    }
    return n;
  }

  /**
   * The partition key of a row given as values in schema order: its buckets, then its range
   * key. Whether a range partition covers it is for the tablets' locations to say: the ranges
   * known here may be older than the table's.
   *
   * @param row the row's values; the hashed and range key columns must be set
   * @return each dimension's bucket as a big-endian int32, in order, then the range columns'
   *     key encoding
   */
  public byte[] partitionKey(Object[] row) {
    byte[] rangeKey = rangeSchema.rangeKey(row);
    ByteWriter w = new ByteWriter(4 * dimensions.size() + rangeKey.length);
    for (int d = 0; d < dimensions.size(); d++) {
      w.writeInt(bucket(d, row));
    }
    w.writeBytes(rangeKey);
    return w.toByteArray();
  }

  /**
   * The range partition of a row.
   *
   * @param row the row's values in schema order
   * @return the range partition the row's range key falls in, or null in a gap
   */
  public RangeBounds rangeOf(Object[] row) {
    byte[] key = rangeSchema.rangeKey(row);
    return ranges.stream().filter(r -> r.contains(key)).findFirst().orElse(null);
  }

  /**
   * The bucket of a row in one dimension.
   *
   * @param d the dimension's index in {@link #dimensions()}
   * @param row the row's values in schema order
   * @return the bucket, 0 to the dimension's bucket count - 1
   */
  public int bucket(int d, Object[] row) {
    int[] idx = columnIndexes[d];
    Object[] vals = new Object[idx.length];
    for (int i = 0; i < idx.length; i++) {
      vals[i] = row[idx[i]];
    }
    byte[] enc = KeyEncoder.encode(columnSchemas.get(d), vals);
    long h = hash64(enc, dimensions.get(d).seed());
    return (int) Long.remainderUnsigned(h, dimensions.get(d).numBuckets());
  }

  /** A stable 64-bit hash (FNV-1a with a murmur finaliser); never change it: data depends on it. */
  static long hash64(byte[] data, int seed) {
    long h = 0xcbf29ce484222325L ^ (seed & 0xffffffffL);
    for (byte b : data) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /**
   * Every tablet's partition, in partition key order. Hash partitioning alone tiles the key
   * space (the first starts and the last ends open); ranges leave their gaps uncovered.
   *
   * @return one {@code PartitionPB} per tablet
   */
  @InternalApi
  public List<PartitionPB> createPartitions() {
    return rangeSchema.isEmpty() ? PartitionTiling.hashOnly(bucketCounts())
        : rangePartitions(ranges);
  }

  /**
   * The partitions of some ranges, one per bucket combination and range, in partition key
   * order: what CreateTable makes for all ranges and AlterTable for an added one.
   *
   * @param rs ranges, sorted by lower bound
   * @return their partitions
   */
  @InternalApi
  public List<PartitionPB> rangePartitions(List<RangeBounds> rs) {
    if (rangeSchema.isEmpty()) {
      throw NyalaException.invalidArgument("the table has no range partition columns");
    }
    return PartitionTiling.ofRanges(bucketCounts(), rs);
  }

  private int[] bucketCounts() {
    return dimensions.stream().mapToInt(HashDimension::numBuckets).toArray();
  }

  /**
   * The wire form.
   *
   * @return the partitioning as a {@code PartitionSchemaPB}
   */
  @InternalApi
  public PartitionSchemaPB toPb() {
    PartitionSchemaPB.Builder b = PartitionSchemaPB.newBuilder();
    for (HashDimension d : dimensions) {
      b.addHashSchemas(HashBucketSchemaPB.newBuilder()
          .addAllColumns(d.columns()).setNumBuckets(d.numBuckets()).setSeed(d.seed()));
    }
    b.addAllRangeColumns(rangeSchema.columns());
    ranges.forEach(r -> b.addRanges(r.toPb()));
    return b.build();
  }

  /**
   * Reads the wire form.
   *
   * @param pb a partitioning on the wire
   * @param schema the table's schema
   * @return the partition schema
   * @throws NyalaException INVALID_ARGUMENT naming a column that does not fit {@code schema}
   */
  @InternalApi
  public static PartitionSchema fromPb(PartitionSchemaPB pb, Schema schema) {
    List<HashDimension> dims = new ArrayList<>();
    for (HashBucketSchemaPB h : pb.getHashSchemasList()) {
      dims.add(new HashDimension(h.getColumnsList(), h.getNumBuckets(), h.getSeed()));
    }
    List<RangeBounds> rs = new ArrayList<>();
    for (RangeBoundsPB r : pb.getRangesList()) {
      rs.add(RangeBounds.fromPb(r));
    }
    if (pb.getRangeColumnsCount() == 0 && !rs.isEmpty()) {
      throw NyalaException.invalidArgument("range partitions given without range columns");
    }
    return new PartitionSchema(dims, pb.getRangeColumnsList(), rs, schema);
  }

  /**
   * This partitioning with one more range, as AlterTable adds it.
   *
   * @param r the new range
   * @param schema the table's schema
   * @return the new partitioning
   * @throws NyalaException INVALID_ARGUMENT if the table has no range columns or {@code r}
   *     overlaps one of its ranges (naming both)
   */
  @InternalApi
  public PartitionSchema withRange(RangeBounds r, Schema schema) {
    if (rangeSchema.isEmpty()) {
      throw NyalaException.invalidArgument("the table has no range partition columns");
    }
    for (RangeBounds old : ranges) {
      if (old.overlaps(r)) {
        throw NyalaException.invalidArgument("range partition %s overlaps range partition %s",
            rangeSchema.format(r), rangeSchema.format(old));
      }
    }
    List<RangeBounds> rs = new ArrayList<>(ranges);
    rs.add(r);
    return new PartitionSchema(dimensions, rangeSchema.columns(), rs, schema);
  }

  /**
   * This partitioning without one of its ranges, as AlterTable drops it.
   *
   * @param r exactly one of the ranges
   * @param schema the table's schema
   * @return the new partitioning
   * @throws NyalaException INVALID_ARGUMENT if {@code r} is not one of the ranges
   */
  @InternalApi
  public PartitionSchema withoutRange(RangeBounds r, Schema schema) {
    if (!ranges.contains(r)) {
      throw NyalaException.invalidArgument("no range partition %s to drop (the table has %s)",
          rangeSchema.format(r), ranges.stream().map(rangeSchema::format).toList());
    }
    List<RangeBounds> rs = new ArrayList<>(ranges);
    rs.remove(r);
    return new PartitionSchema(dimensions, rangeSchema.columns(), rs, schema);
  }

  @Override
  public String toString() {
    if (dimensions.isEmpty() && rangeSchema.isEmpty()) {
      return "UNPARTITIONED";
    }
    StringBuilder sb = new StringBuilder();
    for (HashDimension d : dimensions) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append("HASH(").append(String.join(", ", d.columns())).append(") PARTITIONS ")
          .append(d.numBuckets());
    }
    if (!rangeSchema.isEmpty()) {
      sb.append(sb.length() > 0 ? ", " : "").append("RANGE(")
          .append(String.join(", ", rangeSchema.columns())).append(") ")
          .append(ranges.stream().map(rangeSchema::format).toList());
    }
    return sb.toString();
  }
}
