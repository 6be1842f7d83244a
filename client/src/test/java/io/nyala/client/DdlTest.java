package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class DdlTest {
  private final ClientFixture f = new ClientFixture(1, 3);

  @AfterEach
  void tearDown() {
    f.close();
  }

  private static void assertError(Runnable r, StatusCode code, String... fragments) {
    assertThatThrownBy(r::run).isInstanceOfSatisfying(NyalaException.class, e -> {
      assertThat(e.code()).isEqualTo(code);
      assertThat(e.getMessage()).contains(fragments);
    });
  }

  @Test
  void createTableWaitsUntilDoneAndReturnsTheMastersView() {
    f.cluster.setCreateNotDonePolls(2);
    NyalaTable t = f.client.createTable("metrics", ClientFixture.schema(),
        new CreateTableOptions().addHashPartitions(List.of("key"), 4).setNumReplicas(3));
    assertThat(f.cluster.masters().get(0).calls("IsCreateTableDone")).isEqualTo(3);
    assertThat(t.getName()).isEqualTo("metrics");
    assertThat(t.getTableId()).isEqualTo(f.cluster.table("metrics").id());
    assertThat(t.getNumReplicas()).isEqualTo(3);
    assertThat(t.getPartitionSchema().numTablets()).isEqualTo(4);
    // Column ids come from the master.
    assertThat(t.getSchema().column("val").id()).isEqualTo(2);
  }

  @Test
  void listExistsOpenAndDelete() {
    f.createTable("a_metrics", 1, 1);
    f.createTable("b_logs", 2, 1);
    assertThat(f.client.listTables()).containsExactly("a_metrics", "b_logs");
    assertThat(f.client.listTables("log")).containsExactly("b_logs");
    assertThat(f.client.listTableInfos("").get(1).numTablets()).isEqualTo(2);
    assertThat(f.client.tableExists("b_logs")).isTrue();
    assertThat(f.client.tableExists("nope")).isFalse();
    assertThat(f.client.openTable("b_logs").getPartitionSchema().numTablets()).isEqualTo(2);

    f.client.deleteTable("b_logs");
    assertThat(f.client.tableExists("b_logs")).isFalse();
    assertError(() -> f.client.openTable("b_logs"), StatusCode.NOT_FOUND,
        "table 'b_logs' not found");
    assertError(() -> f.client.deleteTable("b_logs"), StatusCode.NOT_FOUND, "'b_logs'");
  }

  @Test
  void creatingATakenNameFails() {
    f.createTable("metrics", 1, 1);
    assertError(() -> f.createTable("metrics", 1, 1), StatusCode.ALREADY_PRESENT, "'metrics'");
  }

  @Test
  void badSchemasAndPartitionsFailBeforeAnyCall() {
    Schema noKey = new Schema(List.of(ColumnSchema.builder("v", Type.INT32).build()));
    assertError(() -> f.client.createTable("t", noKey, new CreateTableOptions()),
        StatusCode.INVALID_ARGUMENT, "table 't'", "primary key");
    assertError(() -> f.client.createTable("t", ClientFixture.schema(),
            new CreateTableOptions().addHashPartitions(List.of("val"), 2)),
        StatusCode.INVALID_ARGUMENT, "'val'");
    assertError(() -> f.client.createTable(" ", ClientFixture.schema(),
        new CreateTableOptions()), StatusCode.INVALID_ARGUMENT, "table name");
    assertThat(f.cluster.masters().get(0).totalCalls()).isZero();
  }

  @Test
  void closingTheClientEndsACreateTableThatIsWaitingToRetry() throws Exception {
    f.cluster.setCreateNotDonePolls(Integer.MAX_VALUE);
    java.util.concurrent.CompletableFuture<NyalaTable> pending = f.client.getAsyncClient()
        .createTable("slow", ClientFixture.schema(), new CreateTableOptions());
    org.awaitility.Awaitility.await().until(
        () -> f.cluster.masters().get(0).calls("IsCreateTableDone") >= 2);

    f.client.close();

    assertThatThrownBy(() -> pending.get(5, java.util.concurrent.TimeUnit.SECONDS))
        .hasCauseInstanceOf(NyalaException.class).hasMessageContaining("client is closed");
  }

  @Test
  void createTableTimesOutWhenTheTabletsNeverFinish() {
    f.cluster.setCreateNotDonePolls(Integer.MAX_VALUE);
    try (NyalaClient c = NyalaClient.builder(f.cluster.masterAddresses())
        .defaultAdminOperationTimeoutMs(300).build()) {
      assertError(() -> c.createTable("slow", ClientFixture.schema(), new CreateTableOptions()),
          StatusCode.TIMED_OUT, "'slow'");
    }
  }
}
