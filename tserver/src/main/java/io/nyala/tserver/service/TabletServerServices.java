package io.nyala.tserver.service;

import io.grpc.BindableService;
import io.grpc.stub.StreamObserver;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.common.proto.tserver.AlterSchemaResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.ConfirmHibernatedRequestPB;
import io.nyala.common.proto.tserver.ConfirmHibernatedResponsePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.CreateTabletResponsePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.proto.tserver.HibernateReplicaRequestPB;
import io.nyala.common.proto.tserver.HibernateReplicaResponsePB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.common.proto.tserver.RequestHibernationResponsePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.ScannerKeepAliveRequestPB;
import io.nyala.common.proto.tserver.ScannerKeepAliveResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.TransferLeadershipResponsePB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.common.proto.tserver.WakeReplicaResponsePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.rpc.AliasingMarshaller;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.Rpcs;
import io.nyala.tserver.heartbeat.ClusterIdGuard;
import io.nyala.tserver.replica.ReplicaHibernator;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.scan.ScannerManager;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * The gRPC faces of the tablet server. Every handler goes through {@link Rpcs}, so any failure
 * (bad input included) becomes the response's error field rather than a broken call.
 */
final class TabletServerServices {
  private TabletServerServices() {}

  /** Data path: Write, Scan, ScannerKeepAlive, ListTablets. */
  static final class Data extends TabletServerServiceGrpc.TabletServerServiceImplBase {
    private final TabletManager tablets;
    private final Supplier<RaftServer> raft;
    private final WriteHandler writes;
    private final ScanHandler scans;
    private final ScannerManager scanners;

    Data(TabletManager tablets, Supplier<RaftServer> raft, WriteHandler writes,
        ScanHandler scans, ScannerManager scanners) {
      this.tablets = tablets;
      this.raft = raft;
      this.writes = writes;
      this.scans = scans;
      this.scanners = scanners;
    }

    /**
     * This service with Write requests parsed by aliasing, so that the rows reach the Raft log
     * write without a copy after the one out of the transport's buffers.
     */
    BindableService withAliasedWrites() {
      // Scans too: a request that does not parse is then INVALID_ARGUMENT, not gRPC's UNKNOWN.
      return () -> AliasingMarshaller.forRequests(AliasingMarshaller.forRequests(bindService(),
              TabletServerServiceGrpc.getWriteMethod(), WriteRequestPB.getDefaultInstance()),
          TabletServerServiceGrpc.getScanMethod(), ScanRequestPB.getDefaultInstance());
    }

    @Override
    public void write(WriteRequestPB req, StreamObserver<WriteResponsePB> out) {
      Rpcs.respondAsync(out, () -> writes.write(req),
          e -> WriteResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void scan(ScanRequestPB req, StreamObserver<ScanResponsePB> out) {
      Rpcs.respondAsync(out, () -> scans.scan(req),
          e -> ScanResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void scannerKeepAlive(ScannerKeepAliveRequestPB req,
        StreamObserver<ScannerKeepAliveResponsePB> out) {
      Rpcs.respond(out, () -> {
        scanners.get(req.getScannerId().toByteArray());
        return ScannerKeepAliveResponsePB.getDefaultInstance();
      }, e -> ScannerKeepAliveResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void listTablets(ListTabletsRequestPB req, StreamObserver<ListTabletsResponsePB> out) {
      Rpcs.respond(out, () -> {
        ListTabletsResponsePB.Builder b = ListTabletsResponsePB.newBuilder();
        for (TabletReplica r : tablets.replicas()) {
          b.addTablets(r.status(raft.get()));
        }
        return b.build();
      }, e -> ListTabletsResponsePB.newBuilder().setError(e).build());
    }
  }

  /**
   * Admin path: CreateTablet, DeleteTablet, AlterSchema and ChangeConfig (called by the
   * master), TransferLeadership
   * (operators and tests).
   */
  static final class Admin extends TabletServerAdminServiceGrpc.TabletServerAdminServiceImplBase {
    /** How long a leadership transfer may take when the request does not say. */
    private static final long DEFAULT_TRANSFER_TIMEOUT_MS = 5000;
    /**
     * How long CreateTablet waits for the new replica to open before answering anyway: enough
     * for a server that is not creating many at once, well under the master's 10 s deadline.
     */
    private static final long CREATE_ANSWER_WAIT_MS = 3000;

    private final TabletManager tablets;
    private final Supplier<RaftServer> raft;
    private final AlterSchemaHandler alters;
    private final ChangeConfigHandler configs;
    private final DeleteTabletHandler deletes;
    private final ClusterIdGuard clusterGuard;
    private final ReplicaHibernator hibernator;

    Admin(TabletManager tablets, Supplier<RaftServer> raft, Channels channels,
        ClusterIdGuard clusterGuard, DeleteTabletHandler deletes, ReplicaHibernator hibernator) {
      this.hibernator = hibernator;
      this.tablets = tablets;
      this.raft = raft;
      this.alters = new AlterSchemaHandler(tablets, raft);
      this.configs = new ChangeConfigHandler(tablets, raft, channels, clusterGuard);
      this.clusterGuard = clusterGuard;
      this.deletes = deletes;
    }

    @Override
    public void changeConfig(ChangeConfigRequestPB req,
        StreamObserver<ChangeConfigResponsePB> out) {
      Rpcs.respondAsync(out, () -> {
        clusterGuard.checkCaller(req.getClusterId(), "ChangeConfig of tablet "
            + req.getTabletId());
        return configs.change(req);
      },
          e -> ChangeConfigResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void hibernateReplica(HibernateReplicaRequestPB req,
        StreamObserver<HibernateReplicaResponsePB> out) {
      Rpcs.respond(out, () -> {
        clusterGuard.checkCaller(req.getClusterId(), "HibernateReplica of tablet "
            + req.getTabletId());
        hibernator.hibernate(req.getTabletId(), req.getTerm(), req.getIndex());
        return HibernateReplicaResponsePB.getDefaultInstance();
      }, e -> HibernateReplicaResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void requestHibernation(RequestHibernationRequestPB req,
        StreamObserver<RequestHibernationResponsePB> out) {
      Rpcs.respondAsync(out, () -> {
        clusterGuard.checkCaller(req.getClusterId(), "RequestHibernation of tablet "
            + req.getTabletId());
        return hibernator.hibernationRequested(req.getTabletId(), req.getRequestorUuid())
            .thenApply(v -> RequestHibernationResponsePB.getDefaultInstance());
      }, e -> RequestHibernationResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void confirmHibernated(ConfirmHibernatedRequestPB req,
        StreamObserver<ConfirmHibernatedResponsePB> out) {
      Rpcs.respond(out, () -> {
        clusterGuard.checkCaller(req.getClusterId(), "ConfirmHibernated of tablet "
            + req.getTabletId());
        hibernator.coldReads().confirm(req.getTabletId(), req.getTerm(), req.getIndex());
        return ConfirmHibernatedResponsePB.getDefaultInstance();
      }, e -> ConfirmHibernatedResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void wakeReplica(WakeReplicaRequestPB req, StreamObserver<WakeReplicaResponsePB> out) {
      Rpcs.respond(out, () -> {
        clusterGuard.checkCaller(req.getClusterId(), "WakeReplica of tablet "
            + req.getTabletId());
        hibernator.wakeRequested(req.getTabletId());
        return WakeReplicaResponsePB.getDefaultInstance();
      }, e -> WakeReplicaResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void alterSchema(AlterSchemaRequestPB req, StreamObserver<AlterSchemaResponsePB> out) {
      Rpcs.respondAsync(out, () -> {
        clusterGuard.checkCaller(req.getClusterId(), "AlterSchema of tablet "
            + req.getTabletId());
        return alters.alter(req);
      },
          e -> AlterSchemaResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void transferLeadership(TransferLeadershipRequestPB req,
        StreamObserver<TransferLeadershipResponsePB> out) {
      Rpcs.respondAsync(out, () -> {
        TabletReplica replica = tablets.use(req.getTabletId(), CallerDeadline.nanos());
        return replica.serve(() -> transfer(replica, req));
      }, e -> TransferLeadershipResponsePB.newBuilder().setError(e).build());
    }

    private CompletableFuture<TransferLeadershipResponsePB> transfer(TabletReplica replica,
        TransferLeadershipRequestPB req) {
      RaftServer server = raft.get();
      RaftServer.Division d = replica.division(server);
      RaftPeerId target = RaftIds.peerId(req.getNewLeaderUuid());
      if (req.getNewLeaderUuid().isEmpty() || d.getRaftConf().getPeer(target) == null) {
        throw NyalaException.notFound("tablet %s has no replica on tablet server '%s'",
            req.getTabletId(), req.getNewLeaderUuid());
      }
      replica.checkLeader(server);
      long timeout = req.getTimeoutMs() > 0 ? req.getTimeoutMs() : DEFAULT_TRANSFER_TIMEOUT_MS;
      return RaftCalls.transferLeadership(server, replica.groupId(), target, timeout)
          .thenApply(v -> TransferLeadershipResponsePB.getDefaultInstance());
    }

    @Override
    public void createTablet(CreateTabletRequestPB req,
        StreamObserver<CreateTabletResponsePB> out) {
      // Answered once the replica opened, or after CREATE_ANSWER_WAIT_MS with it still
      // OPENING (its metadata is durable and the add is with Ratis): a burst of creates must
      // not hold the master's calls past their deadline (docs/dense-nodes.md).
      Rpcs.respondAsync(out, () -> {
        clusterGuard.checkCaller(req.getClusterId(), "CreateTablet of tablet "
            + req.getTabletId());
        return tablets.createTablet(req)
            .thenApply(v -> CreateTabletResponsePB.getDefaultInstance())
            .completeOnTimeout(CreateTabletResponsePB.getDefaultInstance(),
                CREATE_ANSWER_WAIT_MS, TimeUnit.MILLISECONDS);
      }, e -> CreateTabletResponsePB.newBuilder().setError(e).build());
    }

    @Override
    public void deleteTablet(DeleteTabletRequestPB req,
        StreamObserver<DeleteTabletResponsePB> out) {
      Rpcs.respond(out, () -> {
        deletes.delete(req);
        return DeleteTabletResponsePB.getDefaultInstance();
      }, e -> DeleteTabletResponsePB.newBuilder().setError(e).build());
    }
  }
}
