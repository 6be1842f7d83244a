package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
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
}
