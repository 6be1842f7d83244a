package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.TransferLeadershipResponsePB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three tablet servers in one JVM hosting one tablet with RF 3. */
@Timeout(90)
class ReplicatedTabletTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  @Test
  void leaderServesWritesFollowersRedirectAndFailoverKeepsRows() {
    for (int i = 0; i < 3; i++) {
      servers.add(TserverFixture.start(
          TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort())));
    }
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, servers);
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);

    WriteResponsePB w = fx.write(leader, inserts(tablet, 0, 200, RowOpType.INSERT));
    assertThat(w.hasError()).isFalse();
    assertThat(fx.scanAll(leader, tablet, 50)).hasSize(200);

    TabletServer follower = servers.stream().filter(s -> s != leader).findFirst().orElseThrow();
    WriteResponsePB redirected = fx.write(follower, inserts(tablet, 500, 501, RowOpType.INSERT));
    assertThat(redirected.getError().getCode()).isEqualTo(StatusCodePB.NOT_LEADER);
    assertThat(redirected.getError().getLeaderUuid()).isEqualTo(leader.uuid());
    assertThat(HostPort.fromPb(redirected.getError().getLeaderRpcAddress()))
        .isEqualTo(leader.rpcAddress());

    leader.close();
    List<TabletServer> alive = servers.stream().filter(s -> s != leader).toList();
    TabletServer newLeader = TserverFixture.awaitLeader(tablet, alive);
    assertThat(newLeader).isNotSameAs(leader);
    List<Object[]> rows = fx.scanAll(newLeader, tablet, 64);
    assertThat(rows).hasSize(200);
    assertThat(fx.write(newLeader, inserts(tablet, 200, 210, RowOpType.INSERT)).hasError())
        .isFalse();
    assertThat(fx.scanAll(newLeader, tablet, 1000)).hasSize(210);
  }

  @Test
  void transferLeadershipMovesTheLeaderAndRefusesFollowersAndStrangers() {
    for (int i = 0; i < 3; i++) {
      servers.add(TserverFixture.start(
          TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort())));
    }
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, servers);
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    TabletServer target = servers.stream().filter(s -> s != leader).findFirst().orElseThrow();
    TabletServer other = servers.stream().filter(s -> s != leader && s != target).findFirst()
        .orElseThrow();

    TransferLeadershipResponsePB fromFollower = fx.admin(other.rpcAddress()).transferLeadership(
        transfer(tablet, target.uuid()));
    assertThat(fromFollower.getError().getCode()).isEqualTo(StatusCodePB.NOT_LEADER);
    assertThat(fromFollower.getError().getLeaderUuid()).isEqualTo(leader.uuid());

    TransferLeadershipResponsePB stranger = fx.admin(leader.rpcAddress()).transferLeadership(
        transfer(tablet, "no-such-server"));
    assertThat(stranger.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(stranger.getError().getMessage()).contains(tablet).contains("no-such-server");

    TransferLeadershipResponsePB unknown = fx.admin(leader.rpcAddress()).transferLeadership(
        transfer(RaftIds.newId(), target.uuid()));
    assertThat(unknown.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);

    TransferLeadershipResponsePB ok = fx.admin(leader.rpcAddress()).transferLeadership(
        transfer(tablet, target.uuid()));
    assertThat(ok.getError().getCode()).as(ok.getError().getMessage()).isEqualTo(StatusCodePB.OK);
    assertThat(TserverFixture.awaitLeader(tablet, servers)).isSameAs(target);
    assertThat(fx.write(target, inserts(tablet, 0, 10, RowOpType.INSERT)).hasError()).isFalse();
  }

  private static TransferLeadershipRequestPB transfer(String tablet, String to) {
    return TransferLeadershipRequestPB.newBuilder().setTabletId(tablet).setNewLeaderUuid(to)
        .setTimeoutMs(10_000).build();
  }
}
