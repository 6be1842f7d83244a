package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.replica.ReplicaState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hibernation with real Ratis groups on three tablet servers (docs/dense-nodes.md): an idle,
 * caught-up group closes on every replica, keeps its rows, wakes on the next write, and stays
 * cold across a restart.
 */
@Timeout(120)
class HibernationTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  private TserverOptions options(int i, int raftPort) {
    TserverOptions o = TserverFixture.options(dir.resolve("ts" + i), raftPort);
    o.tabletHibernateAfterMs = 300;
    // Far longer than any wait here: written tablets must go cold within it anyway.
    o.raftProperties.put("raft.server.retrycache.expirytime", "120s");
    return o;
  }

  private List<TabletServer> startThree() {
    for (int i = 0; i < 3; i++) {
      servers.add(TserverFixture.start(options(i, TserverFixture.freePort())));
    }
    return servers;
  }

  private void awaitCold(String tablet) {
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      for (TabletServer ts : servers) {
        assertThat(state(ts, tablet)).isEqualTo(ReplicaState.HIBERNATED);
      }
    });
  }

  /** Writes through {@code first}, following one NOT_LEADER hint as a client does. */
  private WriteResponsePB writeVia(TabletServer first, WriteRequestPB req) {
    WriteResponsePB r = fx.write(first, req);
    if (r.getError().getCode() != StatusCodePB.NOT_LEADER
        || r.getError().getLeaderUuid().isEmpty()) {
      return r;
    }
    TabletServer hinted = servers.stream()
        .filter(s -> s.uuid().equals(r.getError().getLeaderUuid())).findFirst().orElseThrow();
    return fx.write(hinted, req);
  }

  private static ReplicaState state(TabletServer ts, String tablet) {
    return ts.tabletManager().get(tablet).state();
  }

  /**
   * A client's retry of a write whose answer it lost, arriving after the group hibernated and
   * inside the retry window, gets the first outcome and is not applied again (the group went
   * cold without waiting out the window: docs/dense-nodes.md, "Exactly-once across
   * hibernation").
   */
  @Test
  void aRetryAfterTheGroupHibernatedGetsItsFirstOutcome() {
    startThree();
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, servers);
    WriteRequestPB first = inserts(tablet, 0, 50, RowOpType.INSERT).toBuilder()
        .setClientId(ByteString.copyFrom(new byte[16])).setSeqNo(7).build();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(writeVia(servers.get(0), first).hasError()).isFalse());
    awaitCold(tablet);

    // Retried as a client does while the woken group elects its leader.
    WriteResponsePB retry = await().atMost(Duration.ofSeconds(30))
        .until(() -> writeVia(servers.get(2), first), r -> !r.hasError());
    assertThat(retry.getPerRowErrorsList()).isEmpty();
    // The same rows under a new sequence number are a new write: every row already present.
    WriteRequestPB next = first.toBuilder().setSeqNo(8).build();
    WriteResponsePB again = await().atMost(Duration.ofSeconds(30))
        .until(() -> writeVia(servers.get(1), next), r -> !r.hasError());
    assertThat(again.getPerRowErrorsList()).hasSize(50);
    assertThat(fx.scanAll(TserverFixture.awaitLeader(tablet, servers), tablet, 1000)).hasSize(50);
  }

  @Test
  void anIdleGroupHibernatesEverywhereKeepsItsRowsAndWakesOnAWrite() {
    startThree();
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, servers);
    // No leader wait: an untouched tablet may hibernate first; the write wakes it then.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        writeVia(servers.get(0), inserts(tablet, 0, 100, RowOpType.INSERT)).hasError())
        .isFalse());
    // A group that went cold before that write (a slow start) was woken by it: count from here.
    Map<TabletServer, Long> hibernatedBefore = new HashMap<>();
    for (TabletServer ts : servers) {
      hibernatedBefore.put(ts, ts.metrics().value("tablet_hibernations_total", Map.of()));
    }

    awaitCold(tablet);
    for (TabletServer ts : servers) {
      // Out of Ratis' storage dir, and no division left.
      assertThat(ts.raftServer().getGroupIds()).doesNotContain(RaftIds.groupId(tablet));
      assertThat(ts.metrics().value("tablet_replicas", Map.of("state", "hibernated")))
          .isEqualTo(1);
      assertThat(ts.metrics().value("tablet_hibernations_total", Map.of()))
          .isEqualTo(hibernatedBefore.get(ts) + 1);
    }

    // Any replica takes the write: it wakes the group, which elects, and it serves or redirects.
    TabletServer any = servers.get(1);
    long wokenBefore = any.metrics().value("tablet_wakes_total", Map.of());
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        writeVia(any, inserts(tablet, 100, 150, RowOpType.INSERT)).hasError()).isFalse());
    TabletServer newLeader = TserverFixture.awaitLeader(tablet, servers);
    assertThat(fx.scanAll(newLeader, tablet, 1000)).hasSize(150);
    assertThat(any.metrics().value("tablet_wakes_total", Map.of())).isEqualTo(wokenBefore + 1);
    for (TabletServer ts : servers) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(state(ts, tablet)).isIn(ReplicaState.RUNNING, ReplicaState.HIBERNATED));
    }
  }

  @Test
  void aHibernatedReplicaStaysColdAcrossARestartAndWakesFromDisk() {
    int port = TserverFixture.freePort();
    TabletServer ts = TserverFixture.start(options(0, port));
    servers.add(ts);
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, List.of(ts));
    // No leader wait: an untouched tablet may hibernate first; the write wakes it then.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        fx.write(ts, inserts(tablet, 0, 40, RowOpType.INSERT)).hasError()).isFalse());
    await().atMost(Duration.ofSeconds(30)).until(() -> state(ts, tablet)
        == ReplicaState.HIBERNATED);
    Path cold = dir.resolve("ts0").resolve("raft-hibernated")
        .resolve(RaftIds.groupId(tablet).getUuid().toString());
    assertThat(cold).isDirectory();

    ts.close();
    servers.clear();
    TserverOptions o = options(0, port);
    o.tabletHibernateAfterMs = 0; // stays awake once woken, so the test sees it running
    TabletServer again = TserverFixture.start(o);
    servers.add(again);
    assertThat(state(again, tablet)).isEqualTo(ReplicaState.HIBERNATED);
    assertThat(again.raftServer().getGroupIds()).doesNotContain(RaftIds.groupId(tablet));

    // A scan reads the cold store and leaves the group closed (docs/dense-nodes.md, "Reading a
    // cold tablet without waking it"); a write wakes it from disk.
    assertThat(fx.scanAll(again, tablet, 1000)).hasSize(40);
    assertThat(state(again, tablet)).isEqualTo(ReplicaState.HIBERNATED);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        fx.write(again, inserts(tablet, 40, 50, RowOpType.UPSERT)).hasError()).isFalse());
    assertThat(state(again, tablet)).isEqualTo(ReplicaState.RUNNING);
    assertThat(Files.exists(cold)).isFalse();
    assertThat(fx.scanAll(again, tablet, 1000)).hasSize(50);
  }
}
