package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.StatusRuntimeException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.common.proto.tserver.ConfirmHibernatedRequestPB;
import io.nyala.common.proto.tserver.ConfirmHibernatedResponsePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowBlock;
import io.nyala.common.row.RowOpType;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.replica.ReplicaState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading a cold tablet without waking it (docs/dense-nodes.md), on three real tablet servers
 * whose idle period is far longer than the test (tablets go cold only when a test asks their
 * leader for a round): every replica of a cold tablet answers a scan, page by page, from its
 * flushed store, and the group stays closed everywhere; a replica whose peers do not confirm
 * that the group is still closed where it closed does not answer from its store; a wake in the
 * middle of a cold scan leaves the scan reading the same snapshot.
 */
@Timeout(180)
class ColdScanTest {
  private static final int ROWS = 20;

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  private void startThree() {
    for (int i = 0; i < 3; i++) {
      TserverOptions o = TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort());
      // A fixed RPC port: peers keep it in the configuration a cold group wakes with.
      o.rpcBindAddresses = "127.0.0.1:" + TserverFixture.freePort();
      o.tabletHibernateAfterMs = 600_000; // nothing goes cold by itself here
      servers.add(TserverFixture.start(o));
    }
  }

  /** A tablet on all three servers with {@link #ROWS} rows, then hibernated everywhere. */
  private String coldTablet() {
    String t = RaftIds.newId();
    fx.createTablet(t, servers);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        fx.write(TserverFixture.awaitLeader(t, servers), inserts(t, 0, ROWS, RowOpType.INSERT))
            .hasError()).isFalse());
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      TabletServer leader = TserverFixture.awaitLeader(t, servers);
      assertThat(fx.admin(leader.rpcAddress()).requestHibernation(RequestHibernationRequestPB
          .newBuilder().setTabletId(t).setRequestorUuid("test").build()).getError().getCode())
          .isEqualTo(StatusCodePB.OK);
    });
    for (TabletServer ts : servers) {
      assertThat(state(ts, t)).isEqualTo(ReplicaState.HIBERNATED);
    }
    return t;
  }

  private static ReplicaState state(TabletServer ts, String tablet) {
    return ts.tabletManager().get(tablet).state();
  }

  private ScanResponsePB open(TabletServer ts, String tablet, int batch) {
    return fx.data(ts).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tablet))
        .setBatchSizeRows(batch).build());
  }

  private static List<Object[]> rows(ScanResponsePB r) {
    return RowBlock.decode(Schema.fromPb(r.getProjection()), r.getData());
  }

  @Test
  void everyReplicaOfAColdTabletAnswersAScanAndTheGroupStaysClosed() {
    startThree();
    String t = coldTablet();
    long index = servers.get(0).tabletManager().get(t).metadata().getHibernated().getIndex();
    for (TabletServer ts : servers) {
      // Pages of 7: the scanner goes on reading the cold store across calls.
      assertThat(fx.scanAll(ts, t, 7)).as("rows read through %s", ts.name()).hasSize(ROWS);
      ScanResponsePB snap = fx.data(ts).scan(ScanRequestPB.newBuilder().setNewScanRequest(
          NewScanRequestPB.newBuilder().setTabletId(t).setReadMode(ReadModePB.READ_AT_SNAPSHOT)
              .setSnapIndex(index)).setBatchSizeRows(1000).build());
      assertThat(snap.getError().getCode()).isEqualTo(StatusCodePB.OK);
      assertThat(rows(snap)).hasSize(ROWS);
    }
    for (TabletServer ts : servers) {
      assertThat(state(ts, t)).as("on %s", ts.name()).isEqualTo(ReplicaState.HIBERNATED);
      assertThat(ts.raftServer().getGroupIds()).doesNotContain(RaftIds.groupId(t));
      assertThat(ts.hibernator().coldReads().served()).as("cold scans on %s", ts.name())
          .isEqualTo(2);
      assertThat(ts.hibernator().wakes()).isZero();
    }
    // A bad request to a cold replica is refused naming the column, and changes nothing.
    ScanResponsePB bad = fx.data(servers.get(1)).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(t)
            .addProjectedColumns("no_such_column")).build());
    assertThat(bad.getError().getCode()).isNotEqualTo(StatusCodePB.OK);
    assertThat(bad.getError().getMessage()).contains("no_such_column");
    assertThat(state(servers.get(1), t)).isEqualTo(ReplicaState.HIBERNATED);
    assertThat(fx.scanAll(servers.get(1), t, 1000)).hasSize(ROWS);
    // A snapshot beyond what the group closed at cannot be read cold: the scan wakes it.
    ScanResponsePB beyond = fx.data(servers.get(0)).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(t)
            .setReadMode(ReadModePB.READ_AT_SNAPSHOT).setSnapIndex(index + 100)).build());
    assertThat(beyond.getError().getCode()).isNotEqualTo(StatusCodePB.OK);
    await().atMost(Duration.ofSeconds(30)).until(() ->
        state(servers.get(0), t) == ReplicaState.RUNNING);
  }

  @Test
  void aPeerConfirmsOnlyTheExactPointItIsStillClosedAt() {
    startThree();
    String t = coldTablet();
    HibernatedStatePB h = servers.get(1).tabletManager().get(t).metadata().getHibernated();
    TabletServer peer = servers.get(1);
    assertThat(confirm(peer, t, h.getTerm(), h.getIndex()).getError().getCode())
        .isEqualTo(StatusCodePB.OK);
    ConfirmHibernatedResponsePB other = confirm(peer, t, h.getTerm(), h.getIndex() + 1);
    assertThat(other.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(other.getError().getMessage()).contains("hibernated at term " + h.getTerm());

    // Two replicas wake and elect (a new term, a new entry): the third, still closed, must not
    // be told that the group is.
    for (int i = 0; i < 2; i++) {
      fx.admin(servers.get(i).rpcAddress()).wakeReplica(WakeReplicaRequestPB.newBuilder()
          .setTabletId(t).setRequestorUuid("test").build());
    }
    TserverFixture.awaitLeader(t, servers.subList(0, 2));
    ConfirmHibernatedResponsePB awake = confirm(peer, t, h.getTerm(), h.getIndex());
    assertThat(awake.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(awake.getError().getMessage()).contains("not hibernated");
  }

  private ConfirmHibernatedResponsePB confirm(TabletServer to, String tablet, long term,
      long index) {
    return fx.admin(to.rpcAddress()).confirmHibernated(ConfirmHibernatedRequestPB.newBuilder()
        .setTabletId(tablet).setTerm(term).setIndex(index).setRequestorUuid("test").build());
  }

  @Test
  void aReplicaLeftBehindByAWokenGroupDoesNotAnswerWithItsOldRows() {
    startThree();
    String t = coldTablet();
    TabletServer behind = servers.get(2);
    // ts2 hears nothing from the other two and they nothing from it, so that their healer cannot
    // wake it: it stays closed at the old point while they wake and take 10 more rows.
    behind.networkFaults().block(Set.of(servers.get(0).uuid(), servers.get(1).uuid()));
    servers.get(0).networkFaults().block(Set.of(behind.uuid()));
    servers.get(1).networkFaults().block(Set.of(behind.uuid()));
    for (int i = 0; i < 2; i++) {
      fx.admin(servers.get(i).rpcAddress()).wakeReplica(WakeReplicaRequestPB.newBuilder()
          .setTabletId(t).setRequestorUuid("test").build());
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      WriteResponsePB w = fx.write(TserverFixture.awaitLeader(t, servers.subList(0, 2)),
          inserts(t, ROWS, ROWS + 10, RowOpType.INSERT));
      assertThat(w.hasError()).as("%s", w.getError()).isFalse();
    });
    assertThat(state(behind, t)).isEqualTo(ReplicaState.HIBERNATED);

    // Its wake finds no peer: the scan ends at its deadline, one way or another, but never
    // with the 20 rows of the old point.
    int answered;
    try {
      ScanResponsePB r = fx.data(behind).withDeadlineAfter(4, TimeUnit.SECONDS).scan(
          ScanRequestPB.newBuilder().setNewScanRequest(NewScanRequestPB.newBuilder()
              .setTabletId(t)).setBatchSizeRows(1000).build());
      answered = r.getError().getCode() == StatusCodePB.OK ? rows(r).size() : -1;
    } catch (StatusRuntimeException e) {
      answered = -1;
    }
    assertThat(answered).as("rows %s answered", behind.name()).isNotEqualTo(ROWS);
    assertThat(behind.hibernator().coldReads().served()).isZero();
    assertThat(behind.hibernator().coldReads().declined()).isEqualTo(1);
    assertThat(state(behind, t)).isNotEqualTo(ReplicaState.HIBERNATED);

    // Healed, it catches up, and whoever leads answers all 30 rows.
    servers.forEach(ts -> ts.networkFaults().heal());
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
        assertThat(fx.scanAll(TserverFixture.awaitLeader(t, servers), t, 1000))
            .hasSize(ROWS + 10));
  }

  @Test
  void aWakeDuringAColdScanLeavesTheScanOnItsSnapshot() {
    startThree();
    String t = coldTablet();
    TabletServer ts = servers.get(0);
    ScanResponsePB first = open(ts, t, 5);
    assertThat(first.getError().getCode()).isEqualTo(StatusCodePB.OK);
    assertThat(first.getHasMoreResults()).isTrue();
    List<Object[]> read = new ArrayList<>(rows(first));

    // A write to the same server wakes the group (whose state machine takes over the store the
    // scan reads); then 10 rows the scan's snapshot does not hold go in through the leader.
    fx.write(ts, inserts(t, ROWS, ROWS + 1, RowOpType.UPSERT));
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
      WriteResponsePB w = fx.write(TserverFixture.awaitLeader(t, servers),
          inserts(t, ROWS, ROWS + 10, RowOpType.UPSERT));
      assertThat(w.hasError()).as("%s", w.getError()).isFalse();
    });
    assertThat(state(ts, t)).isEqualTo(ReplicaState.RUNNING);

    ScanResponsePB r = first;
    int seq = 1;
    while (r.getHasMoreResults()) {
      r = fx.data(ts).scan(ScanRequestPB.newBuilder().setScannerId(r.getScannerId())
          .setCallSeqId(seq++).setBatchSizeRows(5).build());
      assertThat(r.getError().getCode()).as("%s", r.getError()).isEqualTo(StatusCodePB.OK);
      read.addAll(rows(r));
    }
    assertThat(read).hasSize(ROWS);
    assertThat(fx.scanAll(TserverFixture.awaitLeader(t, servers), t, 1000)).hasSize(ROWS + 10);
  }
}
