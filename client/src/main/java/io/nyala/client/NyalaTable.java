package io.nyala.client;

import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.schema.Schema;

/**
 * An open table: its identity, schema and partitioning as the master reported them when it was
 * opened, and factories for operations and scanners. Immutable and thread-safe.
 */
public final class NyalaTable {
  private final AsyncNyalaClient client;
  private final String id;
  private final String name;
  private final Schema schema;
  private final SchemaPB schemaPb;
  private final PartitionSchema partitionSchema;
  private final int numReplicas;

  NyalaTable(AsyncNyalaClient client, String id, String name, Schema schema,
      PartitionSchema partitionSchema, int numReplicas) {
    this.client = client;
    this.id = id;
    this.name = name;
    this.schema = schema;
    this.schemaPb = schema.toPb();
    this.partitionSchema = partitionSchema;
    this.numReplicas = numReplicas;
  }

  /** @return the table's name */
  public String getName() {
    return name;
  }

  /** @return the table's id, which stays the same if the table is renamed */
  public String getTableId() {
    return id;
  }

  /** @return the table's schema, with the column ids the master assigned */
  public Schema getSchema() {
    return schema;
  }

  /** @return how rows map to tablets */
  public PartitionSchema getPartitionSchema() {
    return partitionSchema;
  }

  /** @return the number of replicas of each tablet */
  public int getNumReplicas() {
    return numReplicas;
  }

  /** @return the client that opened the table */
  public AsyncNyalaClient getAsyncClient() {
    return client;
  }

  SchemaPB schemaPb() {
    return schemaPb;
  }

  /** @return a new INSERT, which fails with ALREADY_PRESENT if the key exists */
  public Operation newInsert() {
    return new Operation(this, RowOpType.INSERT);
  }

  /**
   * @return a new UPSERT, which inserts the row or overwrites the set columns of an existing one
   */
  public Operation newUpsert() {
    return new Operation(this, RowOpType.UPSERT);
  }

  /** @return a new UPDATE, which fails with NOT_FOUND if the key does not exist */
  public Operation newUpdate() {
    return new Operation(this, RowOpType.UPDATE);
  }

  /** @return a new DELETE (set the key columns only), which fails with NOT_FOUND if absent */
  public Operation newDelete() {
    return new Operation(this, RowOpType.DELETE);
  }

  /** @return a new INSERT that does nothing if the key exists */
  public Operation newInsertIgnore() {
    return new Operation(this, RowOpType.INSERT_IGNORE);
  }

  /** @return a new UPDATE that does nothing if the key does not exist */
  public Operation newUpdateIgnore() {
    return new Operation(this, RowOpType.UPDATE_IGNORE);
  }

  /** @return a new DELETE that does nothing if the key does not exist */
  public Operation newDeleteIgnore() {
    return new Operation(this, RowOpType.DELETE_IGNORE);
  }

  /** @return a builder for a scanner over this table */
  public ScannerBuilder newScannerBuilder() {
    return new ScannerBuilder(this);
  }

  @Override
  public String toString() {
    return "table '" + name + "' (" + id + ") " + schema + " " + partitionSchema;
  }
}
