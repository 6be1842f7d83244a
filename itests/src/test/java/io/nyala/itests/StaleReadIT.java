package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.StatusRuntimeException;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.row.RowBlock;
import io.nyala.common.schema.Schema;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * No stale reads from a deposed leader (docs/architecture.md, "Read path"). The leader of a fresh
 * tablet is frozen with SIGSTOP; once another replica leads, a row is written through it; the old
 * leader is thawed while the other two are frozen, so it hears of no new term, and is sent a scan
 * directly (no client, no cache): any answer but rows without the new one is fine (no answer at all
 * is the expected one). The others are thawed and the old leader is scanned again: the answer must
 * be NOT_LEADER or contain the new row. Five rounds, each on a fresh table.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StaleReadIT {
  private MiniCluster cluster;
  private TabletProbe probe;
  private NyalaClient client;

  /**
   * Whether replicas hibernate after {@link Hibernation#SHORT_IDLE_MS}; then each round lets the
   * tablet go cold and wakes it with a write before freezing its leader.
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
        .tserverFlag("--heartbeat_interval_ms=300");
    if (hibernating()) {
      // Longer than a write's retry (2 s RPC timeout), short enough to go cold every round.
      builder.tserverFlag(Hibernation.SHORT_IDLE_FLAG)
          .tserverFlag(Hibernation.retryWindowFlag(8_000));
    }
    cluster = builder.build();
    probe = new TabletProbe(cluster);
    // A write first sent to the frozen leader must give up on it quickly and retry elsewhere.
    client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(60_000)
        .defaultRpcTimeoutMs(2_000)
        .build();
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
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void deposedLeaderNeverServesTheOldState() {
    // Hibernating, each round's tablet must also outlive the retry window (8 s) to go cold:
    // every table is created and written first, so the windows run out together, not in turn.
    int rounds = hibernating() ? 3 : 5;
    List<NyalaTable> tables = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      tables.add(hibernating() ? createAndWrite(round) : null);
    }
    for (int round = 0; round < rounds; round++) {
      NyalaTable table = hibernating() ? tables.get(round) : createAndWrite(round);
      List<String> tablets = cluster.tablets().tabletIds(table.getName());
      assertThat(tablets).hasSize(1);
      String tablet = tablets.get(0);
      if (hibernating()) {
        Hibernation.awaitCold(probe, tablet, cluster.numTabletServers());
        OperationResponse wake = write(table, 2000L + round);
        assertThat(wake.hasRowError()).as("first write to the cold tablet: %s",
            wake.getRowError()).isFalse();
      }
      int old = awaitLeader(tablet, -1);

      cluster.pauseTabletServer(old);
      int fresh;
      long newKey = round;
      try {
        fresh = awaitLeader(tablet, old);
        OperationResponse r = write(table, newKey);
        assertThat(r.hasRowError()).as("write with the old leader frozen: %s", r.getRowError())
            .isFalse();
      } finally {
        // Freeze the other two first, so the thawed old leader hears from nobody and may go on
        // believing it leads: only the linearizable read point stands between it and a stale
        // answer. (Ratis may still step it down on its own for lost heartbeats.)
        for (int i : others(old)) {
          cluster.pauseTabletServer(i);
        }
        cluster.resumeTabletServer(old);
      }
      try {
        checkWhileIsolated(round, old, tablet, newKey);
      } finally {
        for (int i : others(old)) {
          cluster.resumeTabletServer(i);
        }
      }
      ScanResponsePB resp = scanDirect(old, tablet, 30_000);
      // Which of the two safe answers came back, so a run shows what it exercised.
      System.out.printf("StaleReadIT round %d: old leader %s answered %s%n", round,
          probe.info(old).name(), NyalaException.isError(resp.getError())
              ? resp.getError().getCode() + " (" + resp.getError().getMessage() + ")"
              : resp.getData().getNumRows() + " rows at snapshot " + resp.getSnapIndex());
      if (NyalaException.isError(resp.getError())) {
        assertThat(resp.getError().getCode().name())
            .as("round %d: old leader %s refused with: %s", round, probe.info(old).name(),
                resp.getError().getMessage())
            .isEqualTo(StatusCode.NOT_LEADER.name());
      } else {
        assertThat(keys(resp))
            .as("round %d: old leader %s (new leader %s) answered a scan", round,
                probe.info(old).name(), probe.info(fresh).name())
            .contains(newKey);
      }
    }
  }

  /** Creates round {@code round}'s single-tablet table and writes its first row. */
  private NyalaTable createAndWrite(int round) {
    NyalaTable table = client.createTable("stale_" + round, TestRows.schema(),
        new CreateTableOptions().setNumReplicas(3));
    assertThat(write(table, 1000L + round).hasRowError()).isFalse();
    return table;
  }

  /**
   * The old leader is thawed, the others frozen: any answer is fine but stale rows; no answer
   * (the read cannot reach a quorum) is the expected refusal.
   */
  private void checkWhileIsolated(int round, int old, String tablet, long newKey) {
    ListTabletsResponsePB.StatusPB st = probe.status(old, tablet);
    String outcome;
    try {
      ScanResponsePB resp = scanDirect(old, tablet, 3_000);
      if (NyalaException.isError(resp.getError())) {
        outcome = resp.getError().getCode() + " (" + resp.getError().getMessage() + ")";
      } else {
        outcome = resp.getData().getNumRows() + " rows";
        assertThat(keys(resp)).as("round %d: isolated old leader %s answered a scan", round,
            probe.info(old).name()).contains(newKey);
      }
    } catch (StatusRuntimeException e) {
      outcome = "no answer (" + e.getStatus().getCode() + ")";
    }
    System.out.printf("StaleReadIT round %d: isolated old leader %s (role %s, term %s) -> %s%n",
        round, probe.info(old).name(), st == null ? "?" : st.getRole(),
        st == null ? "?" : st.getTerm(), outcome);
  }

  private List<Integer> others(int server) {
    return IntStream.range(0, cluster.numTabletServers()).filter(i -> i != server).boxed()
        .toList();
  }

  private OperationResponse write(NyalaTable table, long k) {
    Operation op = table.newInsert();
    op.getRow().addLong("key", k).addString("name", TestRows.name(k))
        .addInt("num", TestRows.num(k)).addDouble("dbl", TestRows.dbl(k));
    try (NyalaSession s = client.newSession()) {
      return s.apply(op);
    }
  }

  /** A fresh READ_LATEST scan of the whole tablet, sent straight to tablet server {@code i}. */
  private ScanResponsePB scanDirect(int i, String tablet, long deadlineMs) {
    ScanRequestPB req = ScanRequestPB.newBuilder().setNewScanRequest(NewScanRequestPB.newBuilder()
            .setTabletId(tablet).addProjectedColumns("key").setReadMode(ReadModePB.READ_LATEST))
        .setBatchSizeRows(1000).setCloseScanner(false).build();
    return probe.tserver(i, deadlineMs).scan(req);
  }

  private static Set<Long> keys(ScanResponsePB resp) {
    Schema projection = Schema.fromPb(resp.getProjection());
    Set<Long> out = new HashSet<>();
    for (Object[] row : RowBlock.decode(projection, resp.getData())) {
      out.add((Long) row[0]);
    }
    return out;
  }

  /** Waits until a replica other than {@code not} leads {@code tablet}; returns its index. */
  private int awaitLeader(String tablet, int not) {
    return await("a leader of tablet " + tablet + " other than server " + not)
        .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.tablets().leaderIndex(tablet), i -> i >= 0 && i != not);
  }
}
