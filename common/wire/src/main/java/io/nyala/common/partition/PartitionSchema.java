package io.nyala.common.partition;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.HashBucketSchemaPB;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.PartitionSchemaPB;
import io.nyala.common.row.ByteWriter;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * How rows map to tablets: zero or more hash dimensions, each hashing some key columns into a
 * number of buckets. A row's partition key is the big-endian int32 bucket of each dimension in
 * turn; tablets own contiguous partition key ranges and sort by them. No dimension = one tablet.
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

  /**
   * Partitioning of a table's rows.
   *
   * @param dimensions the hash dimensions, in partition key order; none for one tablet
   * @param schema the table's schema
   * @throws NyalaException INVALID_ARGUMENT naming a column that is not a primary key column of
   *     {@code schema} or is hashed twice
   */
  public PartitionSchema(List<HashDimension> dimensions, Schema schema) {
    this.dimensions = List.copyOf(dimensions);
    this.columnIndexes = new int[dimensions.size()][];
    this.columnSchemas = new ArrayList<>();
    java.util.Set<String> used = new java.util.HashSet<>();
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
   * The number of tablets: the product of the dimensions' bucket counts.
   *
   * @return the count, 1 with no dimension
   */
  public int numTablets() {
    int n = 1;
    for (HashDimension d : dimensions) {
      n = Math.multiplyExact(n, d.numBuckets());
    }
    return n;
  }

  /**
   * The partition key of a row given as values in schema order.
   *
   * @param row the row's values; the hashed key columns must be set
   * @return each dimension's bucket as a big-endian int32, in order
   */
  public byte[] partitionKey(Object[] row) {
    ByteWriter w = new ByteWriter(4 * dimensions.size());
    for (int d = 0; d < dimensions.size(); d++) {
      w.writeInt(bucket(d, row));
    }
    return w.toByteArray();
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
   * Every tablet's partition, in partition key order; the first starts and the last ends open.
   *
   * @return one {@code PartitionPB} per tablet
   */
  @InternalApi
  public List<PartitionPB> createPartitions() {
    List<PartitionPB> out = new ArrayList<>();
    int n = numTablets();
    int dims = dimensions.size();
    int[] tuple = new int[dims];
    for (int t = 0; t < n; t++) {
      PartitionPB.Builder b = PartitionPB.newBuilder();
      for (int x : tuple) {
        b.addHashBuckets(x);
      }
      // The first tablet starts at the empty key so that the tablets tile the whole key space.
      if (t > 0) {
        b.setPartitionKeyStart(com.google.protobuf.ByteString.copyFrom(encodeTuple(tuple)));
      }
      int[] next = tuple.clone();
      boolean overflow = increment(next);
      if (!overflow) {
        b.setPartitionKeyEnd(com.google.protobuf.ByteString.copyFrom(encodeTuple(next)));
      }
      out.add(b.build());
      tuple = next;
    }
    return out;
  }

  private boolean increment(int[] tuple) {
    for (int d = tuple.length - 1; d >= 0; d--) {
      tuple[d]++;
      if (tuple[d] < dimensions.get(d).numBuckets()) {
        return false;
      }
      tuple[d] = 0;
    }
    return true;
  }

  private static byte[] encodeTuple(int[] tuple) {
    ByteWriter w = new ByteWriter(4 * tuple.length);
    for (int x : tuple) {
      w.writeInt(x);
    }
    return w.toByteArray();
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
    return new PartitionSchema(dims, schema);
  }

  @Override
  public String toString() {
    if (dimensions.isEmpty()) {
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
    return sb.toString();
  }
}
