package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * How to create a table: its hash partitioning and replication factor. Without hash partitions
 * the table has a single tablet; each {@link #addHashPartitions} call adds a dimension, and the
 * table gets the product of the dimensions' bucket counts as tablets.
 */
public final class CreateTableOptions {
  private final List<PartitionSchema.HashDimension> dimensions = new ArrayList<>();
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
    return new PartitionSchema(dimensions, schema);
  }
}
