package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.common.proto.tserver.RequestHibernationResponsePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.replica.ReplicaState;
import io.nyala.tserver.replica.TabletReplica;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clean stop leaves quiet groups cold (docs/dense-nodes.md), on three real tablet servers
 * whose idle period is far longer than the test, so that nothing goes cold by itself: stopping
 * one hibernates every quiet tablet it hosts, whether it leads it or follows, on all three
 * replicas, but not a tablet with a request in flight or an open scanner, and a tablet written
 * just before the stop once its followers learned the commit; its restart opens no group for
 * them, and every row written before is read back.
 */
@Timeout(180)
class CleanStopHibernationTest {
  private static final int ROWS = 20;

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();
  private final List<TserverOptions> opts = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  private void startThree() {
    startThree(60_000);
  }

  private void startThree(long retryWindowMs) {
    for (int i = 0; i < 3; i++) {
      TserverOptions o = TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort());
      // A fixed RPC port: peers keep it in the configuration a cold group wakes with.
      o.rpcBindAddresses = "127.0.0.1:" + TserverFixture.freePort();
      o.tabletHibernateAfterMs = 600_000; // nothing goes cold by itself here
      o.tabletHibernateOnStopMs = new TserverOptions().tabletHibernateOnStopMs; // the default
      o.raftProperties.put("raft.server.retrycache.expirytime", retryWindowMs + "ms");
      opts.add(o);
      servers.add(TserverFixture.start(o));
    }
  }

  /** {@code n} tablets on all three servers, {@link #ROWS} rows each. */
  private List<String> writtenTablets(int n) {
    List<String> tablets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String t = RaftIds.newId();
      fx.createTablet(t, servers);
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
          writeVia(inserts(t, 0, ROWS, RowOpType.INSERT)).hasError()).isFalse());
      tablets.add(t);
    }
    return tablets;
  }

  private WriteResponsePB writeVia(WriteRequestPB req) {
    TabletServer leader = TserverFixture.awaitLeader(req.getTabletId(), servers);
    return fx.write(leader, req);
  }

  private void lead(String tablet, TabletServer to) {
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
      if (leader != to) {
        fx.admin(leader.rpcAddress()).transferLeadership(TransferLeadershipRequestPB.newBuilder()
            .setTabletId(tablet).setNewLeaderUuid(to.uuid()).setTimeoutMs(5_000).build());
      }
      assertThat(TserverFixture.awaitLeader(tablet, servers)).isSameAs(to);
    });
  }

  /** Every replica holds, has committed, applied and flushed the same last entry. */
  private void awaitQuiet(String tablet) {
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      long last = -1;
      for (TabletServer ts : servers) {
        RaftServer.Division d = ts.raftServer().getDivision(RaftIds.groupId(tablet));
        RaftLog log = d.getRaftLog();
        long mine = log.getLastEntryTermIndex().getIndex();
        assertThat(log.getLastCommittedIndex()).isEqualTo(mine);
        assertThat(d.getInfo().getLastAppliedIndex()).isEqualTo(mine);
        assertThat(log.getFlushIndex()).isEqualTo(mine);
        assertThat(last == -1 || last == mine).isTrue();
        last = mine;
        d.getCommitInfos().forEach(c -> assertThat(c.getCommitIndex()).isEqualTo(mine));
      }
    });
  }

  private static ReplicaState state(TabletServer ts, String tablet) {
    return ts.tabletManager().get(tablet).state();
  }

  /** Opens a scanner on the tablet's leader and leaves it open (one row of many read). */
  private void openScanner(String tablet) {
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    ScanResponsePB r = fx.data(leader).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tablet))
        .setBatchSizeRows(1).build());
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.OK);
    assertThat(r.getHasMoreResults()).isTrue();
  }

  /**
   * Reads the whole tablet through whichever replica answers: a cold replica from its flushed
   * store (docs/dense-nodes.md, "Reading a cold tablet without waking it"), an awake group
   * through its leader once it elected.
   */
  private int rowsReadBack(String tablet) {
    return rowsReadBack(tablet, ROWS);
  }

  private int rowsReadBack(String tablet, int expected) {
    return await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      for (TabletServer ts : servers) {
        try {
          return fx.scanAll(ts, tablet, 1000).size();
        } catch (RuntimeException e) {
          // not the leader, or the group still elects: try the next replica
        }
      }
      return -1;
    }, n -> n == expected);
  }

  /** Writes through whichever replica serves it, waking the group first if it is cold. */
  private WriteResponsePB writeAnywhere(WriteRequestPB req) {
    return await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      for (TabletServer ts : servers) {
        WriteResponsePB r = fx.write(ts, req);
        if (!r.hasError()) {
          return r;
        }
      }
      return null;
    }, r -> r != null);
  }

  private RequestHibernationResponsePB requestHibernation(TabletServer to, String tablet) {
    return fx.admin(to.rpcAddress()).requestHibernation(RequestHibernationRequestPB.newBuilder()
        .setTabletId(tablet).setRequestorUuid("test").build());
  }

  @Test
  void aCleanStopHibernatesEveryQuietTabletItHostsOnAllReplicasAndRestartsThemCold() {
    startThree();
    TabletServer stopping = servers.get(0);
    List<String> tablets = writtenTablets(6);
    // Two led by the stopping server, two by the others, then one with an open scanner and
    // one with a request in flight on the stopping server.
    lead(tablets.get(0), stopping);
    lead(tablets.get(1), stopping);
    lead(tablets.get(2), servers.get(1));
    lead(tablets.get(3), servers.get(2));
    lead(tablets.get(5), servers.get(1));
    tablets.forEach(this::awaitQuiet);
    openScanner(tablets.get(4));
    TabletReplica inFlight = stopping.tabletManager().use(tablets.get(5),
        System.nanoTime() + Duration.ofSeconds(10).toNanos());
    List<String> quiet = tablets.subList(0, 4);
    List<String> busy = tablets.subList(4, 6);

    try {
      stopping.close();
    } finally {
      inFlight.exit();
    }
    for (String t : quiet) {
      for (TabletServer ts : servers) {
        assertThat(state(ts, t)).as("tablet %s on %s", t, ts.name())
            .isEqualTo(ReplicaState.HIBERNATED);
      }
    }
    for (String t : busy) {
      for (TabletServer ts : servers.subList(1, 3)) {
        assertThat(state(ts, t)).as("tablet %s on %s", t, ts.name())
            .isEqualTo(ReplicaState.RUNNING);
      }
      assertThat(state(stopping, t)).isNotEqualTo(ReplicaState.HIBERNATED);
    }

    TabletServer again = TserverFixture.start(opts.get(0));
    servers.set(0, again);
    for (String t : quiet) {
      assertThat(state(again, t)).isEqualTo(ReplicaState.HIBERNATED);
      assertThat(again.raftServer().getGroupIds()).doesNotContain(RaftIds.groupId(t));
    }
    for (String t : busy) {
      assertThat(again.raftServer().getGroupIds()).contains(RaftIds.groupId(t));
    }
    int rows = 0;
    for (String t : tablets) {
      rows += rowsReadBack(t);
    }
    assertThat(rows).isEqualTo(tablets.size() * ROWS);
  }

  /**
   * A stop right after a write: the written groups are not quiet at the first look (the
   * followers learn the last commit only with the leader's next heartbeat), and the stop looks
   * again until they are, so they are cold on all three replicas and the restart opens no
   * group for them.
   */
  @Test
  void tabletsWrittenJustBeforeTheStopAreHibernatedOnceTheirFollowersLearnTheCommit() {
    startThree();
    TabletServer stopping = servers.get(0);
    List<String> tablets = writtenTablets(2);
    lead(tablets.get(0), stopping);
    lead(tablets.get(1), servers.get(1));
    for (String t : tablets) {
      assertThat(writeVia(inserts(t, ROWS, ROWS + 1, RowOpType.INSERT)).hasError()).isFalse();
    }

    stopping.close();
    for (String t : tablets) {
      for (TabletServer ts : servers) {
        assertThat(state(ts, t)).as("tablet %s on %s", t, ts.name())
            .isEqualTo(ReplicaState.HIBERNATED);
      }
    }
    TabletServer again = TserverFixture.start(opts.get(0));
    servers.set(0, again);
    for (String t : tablets) {
      assertThat(again.raftServer().getGroupIds()).doesNotContain(RaftIds.groupId(t));
      assertThat(rowsReadBack(t, ROWS + 1)).isEqualTo(ROWS + 1);
    }
  }

  @Test
  void aLeaderThatRefusesARequestedRoundChangesNothingAndARepeatedRequestIsHarmless()
      throws Exception {
    startThree();
    List<String> tablets = writtenTablets(2);
    String scanned = tablets.get(0);
    String quiet = tablets.get(1);
    tablets.forEach(this::awaitQuiet);
    openScanner(scanned);
    TabletServer leader = TserverFixture.awaitLeader(scanned, servers);
    long term = leader.raftServer().getDivision(RaftIds.groupId(scanned)).getInfo()
        .getCurrentTerm();

    RequestHibernationResponsePB refused = requestHibernation(leader, scanned);
    assertThat(refused.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(refused.getError().getMessage()).contains("open scanners");
    TabletServer follower = servers.stream().filter(s -> s != leader).findFirst().orElseThrow();
    RequestHibernationResponsePB notLeader = requestHibernation(follower, scanned);
    assertThat(notLeader.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(notLeader.getError().getMessage()).contains("not its group's leader");
    for (TabletServer ts : servers) {
      assertThat(state(ts, scanned)).isEqualTo(ReplicaState.RUNNING);
      assertThat(ts.raftServer().getDivision(RaftIds.groupId(scanned)).getInfo()
          .getCurrentTerm()).isEqualTo(term);
    }
    assertThat(TserverFixture.awaitLeader(scanned, servers)).isSameAs(leader);

    TabletServer quietLeader = TserverFixture.awaitLeader(quiet, servers);
    assertThat(requestHibernation(quietLeader, quiet).getError().getCode())
        .isEqualTo(StatusCodePB.OK);
    for (TabletServer ts : servers) {
      assertThat(state(ts, quiet)).isEqualTo(ReplicaState.HIBERNATED);
    }
    assertThat(requestHibernation(quietLeader, quiet).getError().getCode())
        .isEqualTo(StatusCodePB.OK);
    assertThat(rowsReadBack(quiet)).isEqualTo(ROWS);
  }

  /**
   * A client's retry of a write whose answer it lost, arriving after every server stopped
   * cleanly (each group hibernated by the first stop) and started again, gets its first
   * outcome: a cold group replays no log at start, so its results must come from the hibernated
   * state (docs/dense-nodes.md, "Exactly-once across hibernation").
   */
  @Test
  void aRetryAfterEveryServerStoppedCleanlyAndStartedAgainGetsItsFirstOutcome() {
    startThree(120_000);
    String tablet = writtenTablets(1).get(0);
    WriteRequestPB first = inserts(tablet, ROWS, ROWS + 50, RowOpType.INSERT).toBuilder()
        .setClientId(TserverFixture.clientId()).setSeqNo(7).build();
    assertThat(writeAnywhere(first).getPerRowErrorsList()).isEmpty();
    awaitQuiet(tablet);

    for (TabletServer ts : servers) {
      ts.close();
    }
    for (int i = 0; i < 3; i++) {
      servers.set(i, TserverFixture.start(opts.get(i)));
      assertThat(state(servers.get(i), tablet)).isEqualTo(ReplicaState.HIBERNATED);
    }

    assertThat(writeAnywhere(first).getPerRowErrorsList()).isEmpty();
    // The same rows under a new sequence number are a new write: every row already present.
    WriteRequestPB next = first.toBuilder().setSeqNo(8).build();
    assertThat(writeAnywhere(next).getPerRowErrorsList()).hasSize(50);
    assertThat(rowsReadBack(tablet, ROWS + 50)).isEqualTo(ROWS + 50);
  }
}
