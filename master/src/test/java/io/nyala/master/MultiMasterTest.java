package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.GetMasterRegistrationResponsePB;
import io.nyala.common.proto.master.ListMastersRequestPB;
import io.nyala.common.proto.master.ListMastersResponsePB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.master.tsmanager.TSManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The sys catalog replicated over three masters found through --master_addresses. */
@Timeout(120)
class MultiMasterTest {
  @TempDir Path dir;

  @Test
  @Timeout(60)
  void mastersDiscoverEachOtherAndElectOneLeader() throws Exception {
    try (MastersFixture f = MastersFixture.start(dir, 3)) {
      int leader = f.awaitLeader();
      Set<String> uuids = new HashSet<>();
      for (int i = 0; i < 3; i++) {
        uuids.add(f.master(i).uuid());
      }
      for (int i = 0; i < 3; i++) {
        int index = i;
        // Every master's catalog group holds all three, and agrees on the leader.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
          ListMastersResponsePB list = f.stub(index).listMasters(
              ListMastersRequestPB.getDefaultInstance());
          assertThat(list.getMastersList()).extracting(e -> e.getRegistration().getUuid())
              .containsExactlyInAnyOrderElementsOf(uuids);
          assertThat(list.getMastersList()).filteredOn(e -> e.getRole() == RaftRolePB.LEADER)
              .extracting(e -> e.getRegistration().getUuid())
              .containsExactly(f.master(leader).uuid());
        });
      }
      // One cluster id, written once by the first leader and replicated to the followers.
      Set<String> clusterIds = new HashSet<>();
      for (int i = 0; i < 3; i++) {
        int index = i;
        await().atMost(Duration.ofSeconds(10)).until(() -> !registration(f, index)
            .getClusterId().isEmpty());
        clusterIds.add(registration(f, i).getClusterId());
      }
      assertThat(clusterIds).hasSize(1);

      // The leader's home page lists the catalog's masters with their roles.
      String page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
              "http://" + f.master(leader).httpAddress() + "/")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(page).contains("<h2>Masters</h2>", "LEADER", "FOLLOWER");
      uuids.forEach(u -> assertThat(page).contains(u));
    }
  }

  @Test
  @Timeout(60)
  void followerAnswersNotLeaderWithTheLeadersAddress() throws Exception {
    try (MastersFixture f = MastersFixture.start(dir, 3);
        FakeTServer ts = new FakeTServer("ts-0")) {
      int leader = f.awaitLeader();
      int follower = (leader + 1) % 3;
      // A follower learns the leader from Raft; wait until it knows it.
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        CreateTableResponsePB r = f.stub(follower).createTable(Tables.create("t", 1, 1));
        assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.NOT_LEADER);
        // Until it knows, the hint is empty: an assertion (retried), not a parse error.
        assertThat(r.getError().getLeaderRpcAddress().getHost()).as("a leader hint").isNotEmpty();
        assertThat(HostPort.fromPb(r.getError().getLeaderRpcAddress()))
            .isEqualTo(f.rpcAddress(leader));
        assertThat(r.getError().getLeaderUuid()).isEqualTo(f.master(leader).uuid());
      });
      TSHeartbeatResponsePB hb = ts.register(f.stub(follower));
      assertThat(hb.getError().getCode()).isEqualTo(StatusCodePB.NOT_LEADER);
      assertThat(HostPort.fromPb(hb.getError().getLeaderRpcAddress()))
          .isEqualTo(f.rpcAddress(leader));
      assertThat(hb.getLeaderMaster()).isFalse();
      assertThat(ts.register(f.stub(leader)).hasError()).isFalse();
    }
  }

  @Test
  @Timeout(90)
  void aNewLeaderKeepsTheCatalogAndTheOldOneRejoinsAsFollower() throws Exception {
    List<FakeTServer> tservers = new ArrayList<>();
    try (MastersFixture f = MastersFixture.start(dir, 3)) {
      int leader = f.awaitLeader();
      for (int i = 0; i < 3; i++) {
        tservers.add(new FakeTServer("ts-" + i));
        tservers.get(i).register(f.stub(leader));
      }
      for (int i = 0; i < 3; i++) {
        CreateTableResponsePB r = f.stub(leader).createTable(Tables.create("t" + i, 2, 3));
        assertThat(r.hasError()).as("%s", r.getError()).isFalse();
      }
      Set<SysTabletEntryPB> tablets = f.master(leader).catalog().catalog()
          .read(s -> new HashSet<>(s.tablets()));
      f.awaitEveryMasterHolds("t0", "t1", "t2");

      f.stopMaster(leader);
      int next = f.awaitLeader();
      assertThat(next).isNotEqualTo(leader);
      Set<SysTabletEntryPB> tabletsAfter = f.master(next).catalog().catalog()
          .read(s -> new HashSet<>(s.tablets()));
      assertThat(tabletsAfter).isEqualTo(tablets);
      ListTablesResponsePB list = f.stub(next).listTables(ListTablesRequestPB.getDefaultInstance());
      assertThat(list.getTablesList()).extracting(ListTablesResponsePB.TableInfo::getName)
          .containsExactlyInAnyOrder("t0", "t1", "t2");
      tservers.forEach(t -> t.register(f.stub(next)));
      CreateTableResponsePB created = f.stub(next).createTable(Tables.create("after", 1, 3));
      assertThat(created.hasError()).as("%s", created.getError()).isFalse();

      // The old leader restarts from its own persisted configuration and follows.
      f.startMaster(leader);
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThat(registration(f, leader).getRole()).isEqualTo(RaftRolePB.FOLLOWER);
        SysTableEntryPB after = f.master(leader).catalog().catalog()
            .read(s -> s.tableByName("after"));
        assertThat(after).isNotNull();
      });
      assertThat(f.master(next).isLeader()).isTrue();
    } finally {
      tservers.forEach(FakeTServer::close);
    }
  }

  @Test
  @Timeout(60)
  void aNewLeaderRestartsLivenessClocksAndAsksForFullReports() throws Exception {
    try (MastersFixture f = MastersFixture.start(dir, 3, "--tserver_unresponsive_timeout_ms=5000");
        FakeTServer ts = new FakeTServer("ts-0")) {
      int a = f.awaitLeader();
      int b = (a + 1) % 3;
      ts.register(f.stub(a));
      assertThat(ts.heartbeat(f.stub(a), null).getNeedsFullTabletReport()).isFalse();
      TSManager registry = f.master(a).tsManager();
      assertThat(registry.isLive(registry.get(ts.uuid))).isTrue();

      f.master(a).transferCatalogLeadership(f.master(b).uuid(), 10_000);
      f.awaitLeader(b);
      // While another master leads, this one's clock runs far past the unresponsive timeout.
      f.advanceClock(a, Duration.ofMinutes(5));
      assertThat(registry.isLive(registry.get(ts.uuid))).isFalse();
      f.master(b).transferCatalogLeadership(f.master(a).uuid(), 10_000);
      f.awaitLeader(a);

      assertThat(registry.isLive(registry.get(ts.uuid))).isTrue();
      assertThat(registry.millisSinceHeartbeat(registry.get(ts.uuid))).isLessThan(5000);
      TSHeartbeatResponsePB first = ts.heartbeat(f.stub(a), FakeTServer.incremental());
      assertThat(first.getNeedsFullTabletReport()).isTrue();
      assertThat(ts.register(f.stub(a)).getNeedsFullTabletReport()).isFalse();
    }
  }

  @Test
  @Timeout(30)
  void discoveryNamesTheMastersThatNeverAnswered() {
    try (MastersFixture f = MastersFixture.create(dir, 2, "--master_discovery_timeout_ms=500")) {
      assertThatThrownBy(() -> f.startMaster(0)).isInstanceOfSatisfying(NyalaException.class,
          e -> {
            assertThat(e.code()).isEqualTo(StatusCode.TIMED_OUT);
            assertThat(e.getMessage()).contains(f.rpcAddress(1).toString(), "500 ms")
                .doesNotContain(f.rpcAddress(0) + " (");
          });
    }
  }

  private static GetMasterRegistrationResponsePB registration(MastersFixture f, int i) {
    return f.stub(i).getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance());
  }
}
