package io.nyala.master;

import static io.nyala.master.BadInputTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.DataTypePB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableResponsePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DDL call retried after its first attempt took effect (its answer lost) is answered as the
 * first attempt was: the client sends one request id with every attempt.
 */
@Timeout(60)
class DdlRetryTest {
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

  @Test
  void retriedCreateGetsTheTableItMade() {
    CreateTableRequestPB first = Tables.create("retried", 1, 1).toBuilder()
        .setRequestId("create-1").build();
    String id = m.stub().createTable(first).getTableId();
    assertThat(id).isNotEmpty();
    assertThat(m.stub().createTable(first).getTableId()).isEqualTo(id);
    assertError(m.stub().createTable(first.toBuilder().setRequestId("create-2").build())
        .getError(), StatusCodePB.ALREADY_PRESENT, "table 'retried' already exists");
    assertError(m.stub().createTable(first.toBuilder().clearRequestId().build()).getError(),
        StatusCodePB.ALREADY_PRESENT, "table 'retried' already exists");
  }

  @Test
  void retriedAlterIsNotAppliedTwice() {
    m.stub().createTable(Tables.create("altered", 1, 1));
    AlterTableRequestPB addAndRename = AlterTableRequestPB.newBuilder()
        .setTable(Tables.byName("altered"))
        .addAlterSchemaSteps(AlterTableTest.add("extra", DataTypePB.INT32, true, null))
        .setNewTableName("altered2").setRequestId("alter-1").build();
    AlterTableResponsePB first = m.stub().alterTable(addAndRename);
    assertThat(first.hasError()).as("%s", first.getError()).isFalse();
    // The retry still names the table by its old name, and would add the column again.
    AlterTableResponsePB retry = m.stub().alterTable(addAndRename);
    assertThat(retry.hasError()).as("%s", retry.getError()).isFalse();
    assertThat(retry.getTableId()).isEqualTo(first.getTableId());
    assertThat(retry.getSchemaVersion()).isEqualTo(first.getSchemaVersion());
    GetTableSchemaResponsePB schema = m.stub().getTableSchema(GetTableSchemaRequestPB
        .newBuilder().setTable(Tables.byName("altered2")).build());
    assertThat(schema.getSchema().getColumnsList()).filteredOn(c -> c.getName().equals("extra"))
        .hasSize(1);
    // Another alter with the same steps is a new request: refused.
    assertError(m.stub().alterTable(addAndRename.toBuilder().setTable(Tables.byName("altered2"))
            .clearNewTableName().setRequestId("alter-2").build()).getError(),
        StatusCodePB.INVALID_ARGUMENT, "already exists");
  }

  @Test
  void retriedDeleteSucceedsAndSparesATableMadeSince() {
    m.stub().createTable(Tables.create("deleted", 1, 1));
    DeleteTableRequestPB delete = DeleteTableRequestPB.newBuilder()
        .setTable(Tables.byName("deleted")).setRequestId("delete-1").build();
    assertThat(m.stub().deleteTable(delete).hasError()).isFalse();
    assertThat(m.stub().deleteTable(delete).hasError()).isFalse();
    String second = m.stub().createTable(Tables.create("deleted", 1, 1)).getTableId();
    assertThat(m.stub().deleteTable(delete).hasError()).isFalse();
    assertThat(m.stub().getTableSchema(GetTableSchemaRequestPB.newBuilder()
        .setTable(Tables.byName("deleted")).build()).getTableId()).isEqualTo(second);
    m.stub().deleteTable(delete.toBuilder().setRequestId("delete-2").build());
    assertError(m.stub().deleteTable(delete.toBuilder().setRequestId("delete-3").build())
        .getError(), StatusCodePB.NOT_FOUND, "table 'deleted' not found");
  }
}
