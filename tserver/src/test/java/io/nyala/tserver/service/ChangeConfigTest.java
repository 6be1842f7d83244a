package io.nyala.tserver.service;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Membership changes of a real tablet: a joining replica, replace, remove and their errors. */
@Timeout(120)
class ChangeConfigTest {
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
  void replaceADeadReplicaThenRemoveALiveOne() {
    for (int i = 0; i < 4; i++) {
      servers.add(TserverFixture.start(
          TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort())));
    }
    List<TabletServer> first = servers.subList(0, 3);
    fx.createTablet(tablet, first);
    TabletServer leader = TserverFixture.awaitLeader(tablet, first);
    assertThat(fx.write(leader, inserts(tablet, 0, 100, RowOpType.INSERT)).hasError()).isFalse();
    List<String> original = first.stream().map(TabletServer::uuid).toList();
    TabletServer dead = first.stream().filter(s -> s != leader).findFirst().orElseThrow();
    TabletServer other = first.stream().filter(s -> s != leader && s != dead).findFirst()
        .orElseThrow();
    TabletServer joiner = servers.get(3);
    var join = TserverFixture.createRequest(tablet, first).toBuilder().setJoining(true).build();
    RaftPeerPB joinerPeer = TserverFixture.peer(joiner);
    dead.close();

    assertThat(fx.admin(joiner.rpcAddress()).createTablet(join).hasError()).isFalse();
    assertThat(joiner.tabletManager().get(tablet).metadata().getInitialPeersList()).isEmpty();

    ChangeConfigResponsePB replaced = change(leader, ChangeConfigTypePB.REPLACE_PEER,
        joinerPeer, dead.uuid(), original);
    assertThat(replaced.getError().getCode()).as(replaced.getError().getMessage())
        .isEqualTo(StatusCodePB.OK);
    assertThat(replaced.getPeersList()).extracting(RaftPeerPB::getUuid)
        .containsExactlyInAnyOrder(leader.uuid(), other.uuid(), joiner.uuid());

    // The removed member's uuid is stale now: the compare-and-set names both lists.
    ChangeConfigResponsePB stale = change(leader, ChangeConfigTypePB.REMOVE_PEER, null,
        other.uuid(), original);
    assertThat(stale.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(stale.getError().getMessage()).contains(dead.uuid()).contains(joiner.uuid());

    ChangeConfigResponsePB unknown = change(leader, ChangeConfigTypePB.REMOVE_PEER, null,
        "no-such-server", List.of());
    assertThat(unknown.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(unknown.getError().getMessage()).contains("no-such-server");
    ChangeConfigResponsePB self = change(leader, ChangeConfigTypePB.REMOVE_PEER, null,
        leader.uuid(), List.of());
    assertThat(self.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    ChangeConfigResponsePB notLeader = change(other, ChangeConfigTypePB.REMOVE_PEER, null,
        joiner.uuid(), List.of());
    assertThat(notLeader.getError().getCode()).isEqualTo(StatusCodePB.NOT_LEADER);

    ChangeConfigResponsePB removed = change(leader, ChangeConfigTypePB.REMOVE_PEER, null,
        other.uuid(), List.of());
    assertThat(removed.getError().getCode()).as(removed.getError().getMessage())
        .isEqualTo(StatusCodePB.OK);
    assertThat(removed.getPeersList()).extracting(RaftPeerPB::getUuid)
        .containsExactlyInAnyOrder(leader.uuid(), joiner.uuid());
    await().atMost(Duration.ofSeconds(20)).until(() -> other.tabletManager().count() == 0);

    assertThat(fx.admin(leader.rpcAddress()).transferLeadership(TransferLeadershipRequestPB
        .newBuilder().setTabletId(tablet).setNewLeaderUuid(joiner.uuid()).setTimeoutMs(10_000)
        .build()).hasError()).isFalse();
    assertThat(TserverFixture.awaitLeader(tablet, List.of(leader, joiner))).isSameAs(joiner);
    assertThat(fx.scanAll(joiner, tablet, 30)).hasSize(100);
  }

  private ChangeConfigResponsePB change(TabletServer to, ChangeConfigTypePB type,
      RaftPeerPB newPeer, String removeUuid, List<String> expected) {
    ChangeConfigRequestPB.Builder b = ChangeConfigRequestPB.newBuilder().setTabletId(tablet)
        .setType(type).setRemoveUuid(removeUuid).addAllExpectedPeerUuids(expected)
        .setTimeoutMs(30_000);
    if (newPeer != null) {
      b.setNewPeer(newPeer);
    }
    return fx.admin(to.rpcAddress()).changeConfig(b.build());
  }
}
