package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.StatusCode;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Exactly-once writes across a leader's death (docs/architecture.md, "Write path"). Every tablet
 * server runs with {@code --fault_drop_write_response_after_commit}: the first answer to each
 * committed write is withheld, so the client's first attempt hangs after the write was applied.
 * While it hangs the leader is SIGKILLed; the client's retry (same client id, same seq_no) reaches
 * the new leader, whose Ratis retry cache — filled when it applied the entry as a follower —
 * answers with the first outcome. A fresh write of the same row (a new seq_no) shows the duplicate
 * is detected, i.e. that the test would fail if retries were re-applied.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExactlyOnceIT {
  private MiniCluster cluster;
  private TabletProbe probe;
  private NyalaClient client;
  /** The delete test's table, holding keys 8 and 9 from {@link #start()}. */
  private NyalaTable deleteTable;

  /**
   * Whether replicas hibernate after {@link Hibernation#SHORT_IDLE_MS}; then each write under
   * test is the first write to a cold tablet, so it wakes the group while its answer is
   * withheld, and the retry must still be answered from the first outcome.
   */
  boolean hibernating() {
    return false;
  }

  @BeforeAll
  void start() {
    MiniCluster.Builder builder = MiniCluster.builder()
        .processMode(ProcessMode.EXTERNAL)
        .numMasters(1)
        .numTabletServers(3)
        .tserverFlag("--heartbeat_interval_ms=300")
        .tserverFlag("--fault_drop_write_response_after_commit")
        .tserverFlag("--unlock_unsafe_flags");
    if (hibernating()) {
      // The retry comes one RPC timeout (6 s) after the first attempt: well inside 20 s.
      builder.tserverFlag(Hibernation.SHORT_IDLE_FLAG)
          .tserverFlag(Hibernation.retryWindowFlag(20_000));
    }
    cluster = builder.build();
    probe = new TabletProbe(cluster);
    // The first attempt must still hang when the leader is killed, so the attempt timeout is
    // long compared with the second or so a commit takes, yet far below the operation timeout.
    client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(60_000)
        .defaultRpcTimeoutMs(6_000)
        .build();
    // The delete test's rows are written now, so that (hibernating) their tablet waits out the
    // retry window while the insert test runs rather than at the start of the delete test.
    deleteTable = client.createTable("once_delete", TestRows.schema(),
        new CreateTableOptions().setNumReplicas(3));
    // One batch, so the fault withholds (and the client waits out) one answer, not two.
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      s.apply(insert(deleteTable, 8));
      s.apply(insert(deleteTable, 9));
      assertThat(s.flush()).noneMatch(OperationResponse::hasRowError);
    }
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
    }
    if (probe != null) {
      probe.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void insertRetriedAcrossLeaderKillReportsSuccess() throws Exception {
    NyalaTable table = client.createTable("once_insert", TestRows.schema(),
        new CreateTableOptions().setNumReplicas(3));
    String tablet = singleTablet("once_insert");

    OperationResponse first = writeWhileKillingLeader(tablet, table, insert(table, 7),
        () -> TestRows.scanAll(client, table).containsKey(7L));
    assertThat(first.hasRowError()).as("retried insert: %s", first.getRowError()).isFalse();
    assertThat(TestRows.scanAll(client, table)).containsOnlyKeys(7L);

    OperationResponse again = apply(insert(table, 7));
    assertThat(again.hasRowError()).as("a new insert of key 7 (fresh seq_no)").isTrue();
    assertThat(again.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.ALREADY_PRESENT);
  }

  @Test
  @Order(2)
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void deleteRetriedAcrossLeaderKillReportsSuccess() throws Exception {
    NyalaTable table = deleteTable;
    String tablet = singleTablet("once_delete");

    Operation delete = table.newDelete();
    delete.getRow().addLong("key", 8);
    OperationResponse first = writeWhileKillingLeader(tablet, table, delete,
        () -> !TestRows.scanAll(client, table).containsKey(8L));
    assertThat(first.hasRowError()).as("retried delete: %s", first.getRowError()).isFalse();
    assertThat(TestRows.scanAll(client, table)).containsOnlyKeys(9L);

    Operation deleteAgain = table.newDelete();
    deleteAgain.getRow().addLong("key", 8);
    OperationResponse again = apply(deleteAgain);
    assertThat(again.hasRowError()).as("a new delete of key 8 (fresh seq_no)").isTrue();
    assertThat(again.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.NOT_FOUND);
  }

  /**
   * Starts {@code op}, waits until its effect is visible (committed and applied) while its
   * answer is withheld, SIGKILLs the tablet's leader, and returns the op's outcome as the client
   * finally reports it. The killed server is started again afterwards.
   */
  private OperationResponse writeWhileKillingLeader(String tablet, NyalaTable table, Operation op,
      java.util.concurrent.Callable<Boolean> applied) throws Exception {
    if (hibernating()) {
      Hibernation.awaitCold(probe, tablet, cluster.numTabletServers());
    }
    // A cold group has no leader until the write wakes it: then the leader is read after.
    int leader = hibernating() ? -1 : awaitLeader(tablet);
    CompletableFuture<OperationResponse> outcome = CompletableFuture.supplyAsync(() -> apply(op));
    await("write applied on tablet " + tablet).atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100)).until(applied);
    if (leader < 0) {
      leader = awaitLeader(tablet);
    }
    assertThat(outcome.isDone())
        .as("the first attempt's answer is withheld by the fault, so the write is still pending")
        .isFalse();
    cluster.killTabletServer(leader);
    try {
      return outcome.get(60, TimeUnit.SECONDS);
    } finally {
      cluster.startTabletServer(leader);
    }
  }

  private Operation insert(NyalaTable table, long k) {
    Operation op = table.newInsert();
    op.getRow().addLong("key", k).addString("name", TestRows.name(k))
        .addInt("num", TestRows.num(k)).addDouble("dbl", TestRows.dbl(k));
    return op;
  }

  /** Applies one operation in its own AUTO_FLUSH_SYNC session. */
  private OperationResponse apply(Operation op) {
    try (NyalaSession s = client.newSession()) {
      return s.apply(op);
    }
  }

  private String singleTablet(String table) {
    List<String> ids = cluster.tablets().tabletIds(table);
    assertThat(ids).as("tablets of table '%s'", table).hasSize(1);
    return ids.get(0);
  }

  private int awaitLeader(String tablet) {
    return cluster.tablets().awaitLeader(tablet, Duration.ofSeconds(30)).index();
  }
}
