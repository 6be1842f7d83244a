package io.nyala.tserver.service;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import io.nyala.tserver.TserverOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteTablet is a compare-and-set against the replica's own Raft configuration, and comes
 * only from this server's cluster (docs/data-safety.md, "Deletes"): a stale or unproven delete
 * is refused and the replica stays a working member; a dropped tablet's delete goes through.
 */
@Timeout(60)
class StaleDeleteTabletTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();
  private final String tablet = RaftIds.newId();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  @Test
  void staleOrUnprovenDeletesAreRefusedAndTheReplicaSurvives() throws Exception {
    for (int i = 0; i < 2; i++) {
      TserverOptions opts = TserverFixture.options(dir.resolve("ts" + i),
          TserverFixture.freePort());
      Files.createDirectories(Path.of(opts.fsWalDir));
      Files.writeString(Path.of(opts.fsWalDir).resolve("cluster_id"), "cluster-a",
          StandardCharsets.UTF_8);
      servers.add(TserverFixture.start(opts));
    }
    TabletServer leader = servers.get(0);
    TabletServer member = servers.get(1);
    fx.createTablet(tablet, List.of(leader));
    TserverFixture.awaitLeader(tablet, List.of(leader));
    assertThat(fx.write(leader, inserts(tablet, 0, 20, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(fx.admin(member.rpcAddress()).createTablet(TserverFixture.createRequest(tablet,
        List.of(leader)).toBuilder().setJoining(true).build()).hasError()).isFalse();
    var added = fx.admin(leader.rpcAddress()).changeConfig(ChangeConfigRequestPB.newBuilder()
        .setTabletId(tablet).setType(ChangeConfigTypePB.ADD_PEER)
        .setNewPeer(TserverFixture.peer(member)).setTimeoutMs(30_000).build());
    assertThat(added.hasError()).as(added.getError().getMessage()).isFalse();
    long index = leader.raftServer().getDivision(RaftIds.groupId(tablet)).getRaftConf()
        .getLogEntryIndex();
    assertThat(index).isPositive();
    await().atMost(Duration.ofSeconds(10)).until(() -> member.raftServer()
        .getDivision(RaftIds.groupId(tablet)).getRaftConf().getLogEntryIndex() == index);

    DeleteTabletResponsePB stale = delete(member, DeleteTabletRequestPB.newBuilder()
        .setCasConfigIndex(index - 1));
    assertThat(stale.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(stale.getError().getMessage()).contains(tablet)
        .contains("index " + index).contains("caller's " + (index - 1));
    assertThat(delete(member, DeleteTabletRequestPB.newBuilder().setCasConfigIndex(index))
        .getError().getMessage()).contains("lists this server as a member");
    assertThat(delete(member, DeleteTabletRequestPB.newBuilder()).getError().getCode())
        .isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(delete(member, DeleteTabletRequestPB.newBuilder().setTabletDropped(true)
        .setClusterId("cluster-b")).getError().getMessage())
        .contains("cluster-b").contains("cluster-a");
    assertThat(member.metrics().value("delete_tablet_requests_refused_total")).isEqualTo(4);

    // Still a working member: it takes the next write.
    assertThat(fx.write(leader, inserts(tablet, 20, 30, RowOpType.INSERT)).hasError()).isFalse();
    long applied = leader.raftServer().getDivision(RaftIds.groupId(tablet)).getInfo()
        .getLastAppliedIndex();
    await().atMost(Duration.ofSeconds(10)).until(() -> member.raftServer()
        .getDivision(RaftIds.groupId(tablet)).getInfo().getLastAppliedIndex() >= applied);
    assertThat(member.tabletManager().get(tablet).stateMachine().store().liveRowCount())
        .isEqualTo(30);

    DeleteTabletResponsePB dropped = delete(member, DeleteTabletRequestPB.newBuilder()
        .setTabletDropped(true).setClusterId("cluster-a"));
    assertThat(dropped.hasError()).as(dropped.getError().getMessage()).isFalse();
    assertThat(member.tabletManager().count()).isZero();
  }

  private DeleteTabletResponsePB delete(TabletServer ts, DeleteTabletRequestPB.Builder b) {
    return fx.admin(ts.rpcAddress()).deleteTablet(b.setTabletId(tablet).setReason("test")
        .build());
  }
}
