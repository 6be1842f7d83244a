package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.DataTypePB;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.HashBucketSchemaPB;
import io.nyala.common.proto.PartitionSchemaPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.IsCreateTableDoneRequestPB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every bad request gets a code and a message naming the culprit; the master keeps serving. */
@Timeout(60)
class BadInputTest {
  @TempDir static Path dir;
  static FakeCluster cluster;
  static MasterFixture m;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = FakeCluster.start(dir, 2);
    m = cluster.m;
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private static ErrorPB create(CreateTableRequestPB req) {
    return m.stub().createTable(req).getError();
  }

  @Test
  void unknownTableIsNotFoundInEveryCall() {
    assertThat(m.stub().getTableSchema(GetTableSchemaRequestPB.newBuilder()
        .setTable(Tables.byName("ghost")).build()).getError())
        .satisfies(e -> assertError(e, StatusCodePB.NOT_FOUND, "table 'ghost' not found"));
    assertThat(m.stub().deleteTable(DeleteTableRequestPB.newBuilder()
        .setTable(Tables.byName("ghost")).build()).getError())
        .satisfies(e -> assertError(e, StatusCodePB.NOT_FOUND, "table 'ghost' not found"));
    assertThat(m.stub().isCreateTableDone(IsCreateTableDoneRequestPB.newBuilder()
        .setTable(Tables.byId("0123456789abcdef0123456789abcdef")).build()).getError())
        .satisfies(e -> assertError(e, StatusCodePB.NOT_FOUND,
            "0123456789abcdef0123456789abcdef"));
    assertThat(m.stub().getTableSchema(GetTableSchemaRequestPB.getDefaultInstance())
        .getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
  }

  @Test
  void schemaWithoutKey() {
    SchemaPB noKey = SchemaPB.newBuilder().addColumns(ColumnSchemaPB.newBuilder()
        .setName("v").setType(DataTypePB.INT32).setIsNullable(true)).build();
    assertError(create(CreateTableRequestPB.newBuilder().setName("nokey").setSchema(noKey)
        .setNumReplicas(1).build()), StatusCodePB.INVALID_ARGUMENT, "nokey", "primary key");
    assertError(create(CreateTableRequestPB.newBuilder().setName("nocols").setNumReplicas(1)
        .build()), StatusCodePB.INVALID_ARGUMENT, "nocols", "no columns");
  }

  @Test
  void duplicateColumnAndEmptyName() {
    SchemaPB dup = Tables.schema().toBuilder().addColumns(ColumnSchemaPB.newBuilder()
        .setName("val").setType(DataTypePB.INT32).setIsNullable(true)).build();
    assertError(create(CreateTableRequestPB.newBuilder().setName("dupcol").setSchema(dup)
        .setNumReplicas(1).build()), StatusCodePB.INVALID_ARGUMENT, "val");
    assertError(create(Tables.create("", 1, 1)), StatusCodePB.INVALID_ARGUMENT,
        "table name must not be empty");
  }

  @Test
  void duplicateTableName() {
    assertThat(create(Tables.create("twice", 1, 1)).getCode()).isEqualTo(StatusCodePB.OK);
    assertError(create(Tables.create("twice", 1, 1)), StatusCodePB.ALREADY_PRESENT,
        "table 'twice' already exists");
  }

  @Test
  void replicationFactorAboveLiveTServers() {
    assertError(create(Tables.create("toowide", 1, 3)), StatusCodePB.INVALID_ARGUMENT,
        "not enough live tablet servers to create a table with replication factor 3: "
            + "2 are alive");
    assertError(create(Tables.create("negative", 1, -1)), StatusCodePB.INVALID_ARGUMENT,
        "replication factor must be at least 1, got -1");
    assertThat(m.stub().listTables(ListTablesRequestPB.getDefaultInstance()).getTablesList())
        .noneMatch(t -> t.getName().equals("toowide") || t.getName().equals("negative"));
  }

  @Test
  void badPartitionColumn() {
    CreateTableRequestPB req = Tables.create("badpart", 1, 1).toBuilder()
        .setPartitionSchema(PartitionSchemaPB.newBuilder().addHashSchemas(
            HashBucketSchemaPB.newBuilder().addColumns("nosuch").setNumBuckets(4)))
        .build();
    assertError(create(req), StatusCodePB.INVALID_ARGUMENT, "badpart", "'nosuch'");
    CreateTableRequestPB nonKey = Tables.create("nonkeypart", 1, 1).toBuilder()
        .setPartitionSchema(PartitionSchemaPB.newBuilder().addHashSchemas(
            HashBucketSchemaPB.newBuilder().addColumns("val").setNumBuckets(4)))
        .build();
    assertError(create(nonKey), StatusCodePB.INVALID_ARGUMENT, "'val'", "primary key");
    assertThat(m.master.isLeader()).isTrue();
  }

  static void assertError(ErrorPB e, StatusCodePB code, String... fragments) {
    assertThat(e.getCode()).as(e.getMessage()).isEqualTo(code);
    for (String f : fragments) {
      assertThat(e.getMessage()).contains(f);
    }
  }
}
