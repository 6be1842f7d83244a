package io.nyala.master;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.master.TabletReportPB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.common.proto.tserver.AlterSchemaResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.CreateTabletResponsePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake tablet server: a real gRPC admin service that records CreateTablet, DeleteTablet,
 * AlterSchema and ChangeConfig calls (and answers OK), plus a heartbeat driver that reports to
 * the master over real gRPC.
 */
final class FakeTServer implements AutoCloseable {
  final String uuid = RaftIds.newId();
  final String name;
  final List<CreateTabletRequestPB> creates = new CopyOnWriteArrayList<>();
  final List<DeleteTabletRequestPB> deletes = new CopyOnWriteArrayList<>();
  final List<AlterSchemaRequestPB> alters = new CopyOnWriteArrayList<>();
  final List<ChangeConfigRequestPB> changes = new CopyOnWriteArrayList<>();
  /** When set, ChangeConfig is answered with SERVICE_UNAVAILABLE (a change that failed). */
  volatile boolean failChanges;
  /**
   * When positive, that many DeleteTablet calls are answered SERVICE_UNAVAILABLE (recorded in
   * {@link #failedDeletes}, not in {@link #deletes}): a delete that did not arrive.
   */
  final AtomicInteger deletesToFail = new AtomicInteger();
  final List<DeleteTabletRequestPB> failedDeletes = new CopyOnWriteArrayList<>();
  /**
   * When set, ChangeConfig and AlterSchema are answered NOT_LEADER naming this server (a replica
   * of a hibernated tablet that woke its group, which elected another leader).
   */
  volatile FakeTServer notLeaderHint;
  /** When positive, CreateTablet is answered this much later (a tserver creating slowly). */
  volatile long createDelayMs;
  /** CreateTablet calls being answered now, and the most there were at once. */
  final AtomicInteger createsInProgress = new AtomicInteger();
  final AtomicInteger maxCreatesInProgress = new AtomicInteger();
  private final ScheduledExecutorService delayer = Executors.newSingleThreadScheduledExecutor();
  private final Server server;

  FakeTServer(String name) throws IOException {
    this.name = name;
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new Admin()).build().start();
  }

  HostPort rpcAddress() {
    return new HostPort("127.0.0.1", server.getPort());
  }

  ServerRegistrationPB registration() {
    return ServerRegistrationPB.newBuilder()
        .setUuid(uuid)
        .setName(name)
        .setRpcAddress(rpcAddress().toPb())
        .setRaftAddress(new HostPort("127.0.0.1", 1).toPb())
        .setHttpAddress(new HostPort("127.0.0.1", 2).toPb())
        .build();
  }

  TSHeartbeatResponsePB heartbeat(MasterServiceGrpc.MasterServiceBlockingStub master,
      TabletReportPB report) {
    return heartbeat(master, report, 0, List.of());
  }

  /** A heartbeat reporting {@code numDataDirs} data dirs, {@code failed} of them failed. */
  TSHeartbeatResponsePB heartbeat(MasterServiceGrpc.MasterServiceBlockingStub master,
      TabletReportPB report, int numDataDirs, List<String> failed) {
    TSHeartbeatRequestPB.Builder b = TSHeartbeatRequestPB.newBuilder()
        .setRegistration(registration()).setNumDataDirs(numDataDirs)
        .addAllFailedDataDirs(failed);
    if (report != null) {
      b.setTabletReport(report);
    }
    return master.tSHeartbeat(b.build());
  }

  /** Registers with an empty full report. */
  TSHeartbeatResponsePB register(MasterServiceGrpc.MasterServiceBlockingStub master) {
    return heartbeat(master, TabletReportPB.getDefaultInstance());
  }

  static TabletReportPB incremental(ReportedTabletPB... tablets) {
    return TabletReportPB.newBuilder().setIsIncremental(true)
        .addAllUpdatedTablets(List.of(tablets)).build();
  }

  static ReportedTabletPB leader(String tabletId, long term) {
    return ReportedTabletPB.newBuilder().setTabletId(tabletId).setState(TabletStatePB.RUNNING)
        .setRole(RaftRolePB.LEADER).setTerm(term).build();
  }

  static ReportedTabletPB leader(String tabletId, long term, int schemaVersion) {
    return leader(tabletId, term).toBuilder().setSchemaVersion(schemaVersion).build();
  }

  static ReportedTabletPB follower(String tabletId, String leaderUuid, long term) {
    return ReportedTabletPB.newBuilder().setTabletId(tabletId).setState(TabletStatePB.RUNNING)
        .setRole(RaftRolePB.FOLLOWER).setLeaderUuid(leaderUuid).setTerm(term).build();
  }

  /** As a tserver reports a cold replica: the term and configuration it closed with, no role. */
  static ReportedTabletPB hibernated(String tabletId, long term, List<String> peers,
      long configIndex) {
    return ReportedTabletPB.newBuilder().setTabletId(tabletId)
        .setState(TabletStatePB.HIBERNATED).setTerm(term).addAllConfigPeerUuids(peers)
        .setCommittedConfigIndex(configIndex).build();
  }

  /** The NOT_LEADER error naming {@link #notLeaderHint}, or null when not set. */
  private ErrorPB notLeader(String tabletId) {
    FakeTServer hint = notLeaderHint;
    return hint == null ? null : NyalaException.notLeader("replica of tablet " + tabletId
        + " on " + uuid + " is not the leader", hint.uuid, hint.rpcAddress()).toPb();
  }

  long createsOf(String tabletId) {
    return creates.stream().filter(c -> c.getTabletId().equals(tabletId)).count();
  }

  boolean deleted(String tabletId) {
    return deletes.stream().anyMatch(d -> d.getTabletId().equals(tabletId));
  }

  @Override
  public void close() {
    delayer.shutdownNow();
    server.shutdownNow();
  }

  private final class Admin extends TabletServerAdminServiceGrpc.TabletServerAdminServiceImplBase {
    @Override
    public void createTablet(CreateTabletRequestPB req,
        StreamObserver<CreateTabletResponsePB> out) {
      creates.add(req);
      int now = createsInProgress.incrementAndGet();
      maxCreatesInProgress.accumulateAndGet(now, Math::max);
      Runnable answer = () -> {
        createsInProgress.decrementAndGet();
        out.onNext(CreateTabletResponsePB.getDefaultInstance());
        out.onCompleted();
      };
      if (createDelayMs > 0) {
        delayer.schedule(answer, createDelayMs, TimeUnit.MILLISECONDS);
      } else {
        answer.run();
      }
    }

    @Override
    public void deleteTablet(DeleteTabletRequestPB req,
        StreamObserver<DeleteTabletResponsePB> out) {
      if (deletesToFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        failedDeletes.add(req);
        out.onNext(DeleteTabletResponsePB.newBuilder().setError(NyalaException.unavailable(
            "tablet server %s is shutting down", uuid).toPb()).build());
        out.onCompleted();
        return;
      }
      deletes.add(req);
      out.onNext(DeleteTabletResponsePB.getDefaultInstance());
      out.onCompleted();
    }

    @Override
    public void alterSchema(AlterSchemaRequestPB req, StreamObserver<AlterSchemaResponsePB> out) {
      alters.add(req);
      ErrorPB notLeader = notLeader(req.getTabletId());
      if (notLeader != null) {
        out.onNext(AlterSchemaResponsePB.newBuilder().setError(notLeader).build());
        out.onCompleted();
        return;
      }
      out.onNext(AlterSchemaResponsePB.newBuilder()
          .setSchemaVersion(req.getSchema().getVersion()).build());
      out.onCompleted();
    }

    /** Answers with the expected peers, less the removed one, plus the new one. */
    @Override
    public void changeConfig(ChangeConfigRequestPB req,
        StreamObserver<ChangeConfigResponsePB> out) {
      changes.add(req);
      ErrorPB notLeader = notLeader(req.getTabletId());
      if (notLeader != null) {
        out.onNext(ChangeConfigResponsePB.newBuilder().setError(notLeader).build());
        out.onCompleted();
        return;
      }
      if (failChanges) {
        out.onNext(ChangeConfigResponsePB.newBuilder().setError(NyalaException.unavailable(
            "tablet %s: configuration change failed (test)", req.getTabletId()).toPb()).build());
        out.onCompleted();
        return;
      }
      ChangeConfigResponsePB.Builder b = ChangeConfigResponsePB.newBuilder();
      for (String u : req.getExpectedPeerUuidsList()) {
        if (!u.equals(req.getRemoveUuid())) {
          b.addPeers(RaftPeerPB.newBuilder().setUuid(u));
        }
      }
      out.onNext(b.addPeers(req.getNewPeer()).build());
      out.onCompleted();
    }
  }
}
