package io.nyala.master;

import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.DataTypePB;
import io.nyala.common.proto.HashBucketSchemaPB;
import io.nyala.common.proto.PartitionSchemaPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.TableIdentifierPB;

/** Requests for tests: a (key int64, val string) table hashed into some buckets. */
final class Tables {
  private Tables() {}

  static SchemaPB schema() {
    return SchemaPB.newBuilder()
        .addColumns(ColumnSchemaPB.newBuilder().setName("key").setType(DataTypePB.INT64)
            .setIsKey(true))
        .addColumns(ColumnSchemaPB.newBuilder().setName("val").setType(DataTypePB.STRING)
            .setIsNullable(true))
        .build();
  }

  static CreateTableRequestPB create(String name, int buckets, int replicas) {
    CreateTableRequestPB.Builder b = CreateTableRequestPB.newBuilder()
        .setName(name).setSchema(schema()).setNumReplicas(replicas);
    if (buckets > 1) {
      b.setPartitionSchema(PartitionSchemaPB.newBuilder().addHashSchemas(
          HashBucketSchemaPB.newBuilder().addColumns("key").setNumBuckets(buckets)));
    }
    return b.build();
  }

  static TableIdentifierPB byName(String name) {
    return TableIdentifierPB.newBuilder().setTableName(name).build();
  }

  static TableIdentifierPB byId(String id) {
    return TableIdentifierPB.newBuilder().setTableId(id).build();
  }
}
