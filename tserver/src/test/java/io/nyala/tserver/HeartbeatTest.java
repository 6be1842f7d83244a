package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.DiskFaults;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.web.StatusPage;
import io.nyala.tserver.web.TabletsPage;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Heartbeats against a fake master that records what it is told. */
@Timeout(60)
class HeartbeatTest {
  @TempDir Path dir;

  /** A master that answers every heartbeat OK and keeps the requests. */
  static final class FakeMaster extends MasterServiceGrpc.MasterServiceImplBase {
    final List<TSHeartbeatRequestPB> heartbeats = new CopyOnWriteArrayList<>();

    @Override
    public void tSHeartbeat(TSHeartbeatRequestPB req,
        StreamObserver<TSHeartbeatResponsePB> out) {
      heartbeats.add(req);
      out.onNext(TSHeartbeatResponsePB.newBuilder().setLeaderMaster(true)
          .setMasterHttpAddress(new HostPort("127.0.0.1", 8765).toPb()).build());
      out.onCompleted();
    }
  }

  /** A master that leads (hint null) or answers NOT_LEADER naming the hinted leader. */
  static final class HintingMaster extends MasterServiceGrpc.MasterServiceImplBase {
    final AtomicInteger heartbeats = new AtomicInteger();
    volatile HostPort hint;

    @Override
    public void tSHeartbeat(TSHeartbeatRequestPB req,
        StreamObserver<TSHeartbeatResponsePB> out) {
      heartbeats.incrementAndGet();
      HostPort leader = hint;
      out.onNext(leader == null ? TSHeartbeatResponsePB.newBuilder().setLeaderMaster(true).build()
          : TSHeartbeatResponsePB.newBuilder().setError(NyalaException.notLeader(
              "not the leader", "", leader).toPb()).build());
      out.onCompleted();
    }
  }

  @Test
  void followsNotLeaderHintsAndLeaderChanges() throws Exception {
    List<HintingMaster> masters = List.of(new HintingMaster(), new HintingMaster(),
        new HintingMaster());
    List<Server> servers = new ArrayList<>();
    for (HintingMaster m : masters) {
      servers.add(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(m).build().start());
    }
    List<HostPort> addrs = servers.stream().map(s -> new HostPort("127.0.0.1", s.getPort()))
        .toList();
    masters.get(0).hint = addrs.get(2);
    masters.get(1).hint = addrs.get(2);
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.masterAddresses = HostPort.toString(addrs);
    // A long interval gives each call a long deadline (2 intervals): on a loaded machine a
    // first connection that timed out would send the heartbeater on to the second master.
    o.heartbeatIntervalMs = 2000;
    try (TabletServer ts = TserverFixture.start(o)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> masters.get(2).heartbeats.get() >= 1);
      // The first master's hint led straight to the leader: the second was never asked.
      assertThat(masters.get(1).heartbeats.get()).isZero();
      assertThat(masters.get(0).heartbeats.get()).isEqualTo(1);

      // Leadership moves to the second master; the old leader names it.
      masters.get(1).hint = null;
      masters.get(2).hint = addrs.get(1);
      int before = masters.get(1).heartbeats.get();
      await().atMost(Duration.ofSeconds(15))
          .until(() -> masters.get(1).heartbeats.get() >= before + 2);
    } finally {
      servers.forEach(Server::shutdownNow);
    }
  }

  @Test
  void aFailedDataDirIsReportedToTheMaster() throws Exception {
    FakeMaster master = new FakeMaster();
    Server grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(master).build().start();
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.masterAddresses = "127.0.0.1:" + grpc.getPort();
    o.heartbeatIntervalMs = 200;
    Path data = dir.resolve("data");
    o.fsDataDirs = List.of(data.toString());
    try (TserverFixture fx = new TserverFixture(); TabletServer ts = TserverFixture.start(o)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !master.heartbeats.isEmpty());
      assertThat(master.heartbeats.get(0).getNumDataDirs()).isEqualTo(1);
      assertThat(master.heartbeats.get(0).getFailedDataDirsList()).isEmpty();

      String tablet = RaftIds.newId();
      fx.createTablet(tablet, List.of(ts));
      TserverFixture.awaitLeader(tablet, List.of(ts));
      assertThat(fx.write(ts, TserverFixture.inserts(tablet, 0, 10, RowOpType.INSERT))
          .hasError()).isFalse();
      ts.diskFaults().inject(DiskFaults.Op.SYNC, DiskFaults.Kind.EIO, data);
      assertThatThrownBy(() -> ts.snapshotTablet(tablet))
          .hasMessageContaining("flush failed on a disk error");
      String failed = data.resolve("blocks").toString();
      await().atMost(Duration.ofSeconds(10)).until(() -> master.heartbeats.stream()
          .anyMatch(h -> h.getFailedDataDirsList().equals(List.of(failed))
              && h.getNumDataDirs() == 1));
    } finally {
      grpc.shutdownNow();
    }
  }

  @Test
  void firstReportIsFullThenOnlyChangesAreSent() throws Exception {
    FakeMaster master = new FakeMaster();
    Server grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(master).build().start();
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.masterAddresses = "127.0.0.1:" + grpc.getPort();
    o.heartbeatIntervalMs = 200;
    try (TserverFixture fx = new TserverFixture(); TabletServer ts = TserverFixture.start(o)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !master.heartbeats.isEmpty());
      TSHeartbeatRequestPB first = master.heartbeats.get(0);
      assertThat(first.getTabletReport().getIsIncremental()).isFalse();
      assertThat(first.getRegistration().getUuid()).isEqualTo(ts.uuid());

      String tablet = RaftIds.newId();
      fx.createTablet(tablet, List.of(ts));
      TserverFixture.awaitLeader(tablet, List.of(ts));
      await().atMost(Duration.ofSeconds(10)).until(() -> master.heartbeats.stream()
          .flatMap(h -> h.getTabletReport().getUpdatedTabletsList().stream())
          .anyMatch(r -> r.getTabletId().equals(tablet) && r.getState() == TabletStatePB.RUNNING
              && r.getLeaderUuid().equals(ts.uuid())));
      ReportedTabletPB reported = master.heartbeats.stream()
          .flatMap(h -> h.getTabletReport().getUpdatedTabletsList().stream())
          .filter(r -> r.getState() == TabletStatePB.RUNNING).findFirst().orElseThrow();
      assertThat(reported.getConfigPeerUuidsList()).containsExactly(ts.uuid());
      assertThat(master.heartbeats.get(master.heartbeats.size() - 1).getTabletReport()
          .getIsIncremental()).isTrue();

      // The status page: counts (no tablet id) and a link to the web UI of the master that
      // answered the heartbeats; the tablets page: the replica with its table, state and role,
      // its leader by name.
      String page = StatusPage.render(ts, false);
      assertThat(page).contains("<a href=\"//127.0.0.1:8765/\">")
          .contains("1 replicas: 1 awake (hot)").contains("1 table")
          .contains("--webserver_expose_tablet_ids").doesNotContain(tablet);
      assertThat(StatusPage.render(ts, true)).contains("<a href=\"/tablets\">")
          .doesNotContain(tablet);
      assertThat(TabletsPage.render(ts)).contains(tablet).contains("RUNNING").contains("LEADER")
          .contains("<span title=\"" + ts.uuid() + "\">" + ts.name() + "</span>");

      ts.tabletManager().deleteTablet(tablet, "test");
      await().atMost(Duration.ofSeconds(10)).until(() -> master.heartbeats.stream()
          .anyMatch(h -> h.getTabletReport().getRemovedTabletIdsList().contains(tablet)));
    } finally {
      grpc.shutdownNow();
    }
  }
}
