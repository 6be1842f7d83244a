package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.IsCreateTableDoneRequestPB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The master's view of hibernated tablets (docs/dense-nodes.md): no leader in locations until a
 * woken group reports one, their committed configuration adopted, hot/cold counts listed.
 */
@Timeout(60)
class HibernatedTabletTest extends LocationsTestBase {
  private SysTabletEntryPB tablet;
  private List<String> peers;

  private void startCold() throws Exception {
    startWithTable("cold", 1);
    tablet = tabletsOf(tableId("cold")).get(0);
    peers = tablet.getReplicasList().stream().map(RaftPeerPB::getUuid).toList();
  }

  private FakeTServer ts(String uuid) {
    return tservers.stream().filter(t -> t.uuid.equals(uuid)).findFirst().orElseThrow();
  }

  private void hibernate(long term, List<String> config, long configIndex) {
    for (String u : peers) {
      ts(u).heartbeat(m.stub(), FakeTServer.incremental(
          FakeTServer.hibernated(tablet.getTabletId(), term, config, configIndex)));
    }
  }

  @Test
  void aHibernatedTabletsLocationsListItsReplicasAsFollowersAndNoLeader() throws Exception {
    startCold();
    TabletLocationsPB before = locate("cold").getTabletLocations(0);
    assertThat(leaderOf(before)).isEqualTo(peers.get(0)); // cached from here on

    hibernate(1, peers, 3);

    TabletLocationsPB cold = locate("cold").getTabletLocations(0);
    assertThat(cold.getReplicasList()).hasSize(3)
        .allSatisfy(r -> assertThat(r.getRole()).isEqualTo(RaftRolePB.FOLLOWER));
    assertThat(cold.getReplicasList()).extracting(r -> r.getTsInfo().getUuid())
        .containsExactlyInAnyOrderElementsOf(peers);

    // A stale report from before the hibernation changes nothing; the woken group's does.
    setLeader(tablet.getTabletId(), peers.get(0), 1);
    assertThat(leaderOf(locate("cold").getTabletLocations(0))).isEmpty();
    setLeader(tablet.getTabletId(), peers.get(1), 2);
    assertThat(leaderOf(locate("cold").getTabletLocations(0))).isEqualTo(peers.get(1));
  }

  /**
   * A master that was away through a table's creation and its idle period hears of its tablets
   * only as HIBERNATED: that proves the group came up (a leader hibernated it).
   */
  @Test
  void aCreatingTabletFirstReportedHibernatedIsRunning() throws Exception {
    m = MasterFixture.start(dir);
    for (int i = 0; i < 3; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      tservers.add(ts);
      ts.register(m.stub());
    }
    String id = m.stub().createTable(Tables.create("late", 1, 3)).getTableId();
    tablet = tabletsOf(id).get(0);
    peers = tablet.getReplicasList().stream().map(RaftPeerPB::getUuid).toList();

    hibernate(3, peers, 2);

    await().atMost(Duration.ofSeconds(10)).until(() -> tabletsOf(id).get(0).getState()
        == SysTabletStatePB.SYS_TABLET_RUNNING);
    assertThat(m.stub().isCreateTableDone(IsCreateTableDoneRequestPB.newBuilder()
        .setTable(Tables.byName("late")).build()).getDone()).isTrue();
    assertThat(leaderOf(locate("late").getTabletLocations(0))).isEmpty();
  }

  @Test
  void theConfigurationAHibernatedGroupClosedWithIsAdoptedButNotAnOlderOne() throws Exception {
    startCold();
    FakeTServer outsider = new FakeTServer("ts-3");
    tservers.add(outsider);
    outsider.register(m.stub());
    List<String> swapped = List.of(peers.get(0), peers.get(1), outsider.uuid);

    hibernate(2, swapped, 7);

    await().atMost(Duration.ofSeconds(10)).until(() -> tabletsOf(tableId("cold")).get(0)
        .getConfigIndex() == 7);
    assertThat(tabletsOf(tableId("cold")).get(0).getReplicasList())
        .extracting(RaftPeerPB::getUuid).containsExactlyInAnyOrderElementsOf(swapped);

    // A replica that slept through a later wake (older term) reports an older configuration.
    ts(peers.get(0)).heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.hibernated(tablet.getTabletId(), 1, peers, 9)));
    ts(peers.get(1)).heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.hibernated(tablet.getTabletId(), 2, peers, 5)));
    assertThat(tabletsOf(tableId("cold")).get(0).getConfigIndex()).isEqualTo(7);
    assertThat(tabletsOf(tableId("cold")).get(0).getReplicasList())
        .extracting(RaftPeerPB::getUuid).containsExactlyInAnyOrderElementsOf(swapped);
  }

  @Test
  void tabletServersListAndTheHomePageCountAwakeAndHibernatedReplicas() throws Exception {
    startCold();
    createRunning("hot", 2);
    for (SysTabletEntryPB t : tabletsOf(tableId("hot"))) {
      for (RaftPeerPB p : t.getReplicasList().subList(1, 3)) {
        ts(p.getUuid()).heartbeat(m.stub(), FakeTServer.incremental(
            FakeTServer.follower(t.getTabletId(), t.getReplicas(0).getUuid(), 1)));
      }
    }
    hibernate(1, peers, 3);

    List<ListTabletServersResponsePB.Entry> servers = m.stub()
        .listTabletServers(ListTabletServersRequestPB.getDefaultInstance()).getServersList();

    assertThat(servers).hasSize(3).allSatisfy(e -> {
      assertThat(e.getNumAwakeReplicas()).isEqualTo(2);
      assertThat(e.getNumHibernatedReplicas()).isEqualTo(1);
    });
    String home = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://" + m.master.httpAddress() + "/")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(home).contains("<th>awake</th>").contains("<th>hibernated</th>")
        .containsPattern("<td>total</td>(<td></td>){5}<td>9</td><td>6</td><td>3</td>");
  }
}
