package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.ListMastersRequestPB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.master.TabletReportPB;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Registration, liveness on the injectable clock, full-report requests, registration RPCs. */
@Timeout(60)
class HeartbeatTest {
  @TempDir Path dir;

  @Test
  @Timeout(30)
  void registersAndExpiresOnTheInjectedClock() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir, "--tserver_unresponsive_timeout_ms=5000",
            "--heartbeat_interval_ms=700");
        FakeTServer a = new FakeTServer("ts-a");
        FakeTServer b = new FakeTServer("ts-b")) {
      TSHeartbeatResponsePB first = a.heartbeat(m.stub(), null);
      assertThat(first.hasError()).as(first.getError().getMessage()).isFalse();
      assertThat(first.getLeaderMaster()).isTrue();
      assertThat(first.getMasterUuid()).isEqualTo(m.master.uuid());
      assertThat(first.getHeartbeatIntervalMillis()).isEqualTo(700);
      assertThat(first.getClusterId()).matches("[0-9a-f]{32}");
      assertThat(first.getNeedsFullTabletReport()).isTrue();
      // A full (non-incremental) report satisfies the request; incremental ones do not.
      assertThat(a.heartbeat(m.stub(), TabletReportPB.newBuilder().setIsIncremental(true)
          .build()).getNeedsFullTabletReport()).isTrue();
      assertThat(a.register(m.stub()).getNeedsFullTabletReport()).isFalse();
      assertThat(a.heartbeat(m.stub(), null).getNeedsFullTabletReport()).isFalse();
      b.register(m.stub());

      assertThat(live(m)).containsExactlyInAnyOrder(true, true);
      assertThat(m.master.metrics().value("tservers_live")).isEqualTo(2);
      m.advanceClock(Duration.ofSeconds(4));
      b.heartbeat(m.stub(), null);
      m.advanceClock(Duration.ofSeconds(2));
      ListTabletServersResponsePB list = m.stub().listTabletServers(
          ListTabletServersRequestPB.getDefaultInstance());
      var byName = list.getServersList().stream().collect(java.util.stream.Collectors.toMap(
          e -> e.getTsInfo().getName(), e -> e));
      assertThat(byName.get("ts-a").getLive()).isFalse();
      assertThat(byName.get("ts-a").getMillisSinceHeartbeat()).isGreaterThanOrEqualTo(6000);
      assertThat(byName.get("ts-b").getLive()).isTrue();
      assertThat(byName.get("ts-b").getTsInfo().getRpcAddress().getPort())
          .isEqualTo(b.rpcAddress().port());
      assertThat(m.master.metrics().value("tservers_live")).isEqualTo(1);
      assertThat(m.master.metrics().value("tservers")).isEqualTo(2);

      a.heartbeat(m.stub(), null);
      assertThat(live(m)).containsExactlyInAnyOrder(true, true);
    }
  }

  @Test
  @Timeout(30)
  void badHeartbeatIsAnErrorNotACrash() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      TSHeartbeatResponsePB r = m.stub().tSHeartbeat(TSHeartbeatRequestPB.getDefaultInstance());
      assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
      assertThat(r.getError().getMessage()).contains("uuid");
      assertThat(m.master.isLeader()).isTrue();
    }
  }

  @Test
  @Timeout(30)
  void registrationAndPagesAnswer() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir); FakeTServer a = new FakeTServer("ts-a")) {
      a.register(m.stub());
      var reg = m.stub().getMasterRegistration(
          GetMasterRegistrationRequestPB.getDefaultInstance());
      assertThat(reg.getRegistration().getUuid()).isEqualTo(m.master.uuid());
      assertThat(reg.getRole()).isEqualTo(RaftRolePB.LEADER);
      assertThat(reg.getClusterId()).matches("[0-9a-f]{32}");
      var masters = m.stub().listMasters(ListMastersRequestPB.getDefaultInstance());
      assertThat(masters.getMastersList()).hasSize(1);
      assertThat(masters.getMasters(0).getRole()).isEqualTo(RaftRolePB.LEADER);
      assertThat(masters.getMasters(0).getRegistration().getRpcAddress().getPort())
          .isEqualTo(m.master.rpcAddress().port());

      HttpClient http = HttpClient.newHttpClient();
      String base = "http://" + m.master.httpAddress();
      String home = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(home).contains(m.master.uuid()).contains("leader").contains("ts-a")
          .contains(a.uuid);
      String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(metrics).contains("is_leader{server=\"m-test\"} 1")
          .contains("tservers{server=\"m-test\"} 1")
          .contains("tables{").contains("tablets{").contains("rpc_requests_total");
    }
  }

  private static java.util.List<Boolean> live(MasterFixture m) {
    return m.stub().listTabletServers(ListTabletServersRequestPB.getDefaultInstance())
        .getServersList().stream().map(ListTabletServersResponsePB.Entry::getLive).toList();
  }
}
