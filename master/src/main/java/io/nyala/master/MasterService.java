package io.nyala.master;

import com.google.protobuf.ByteString;
import io.grpc.BindableService;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableResponsePB;
import io.nyala.common.proto.master.AuthenticateRequestPB;
import io.nyala.common.proto.master.AuthenticateResponsePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.master.DeleteTableRequestPB;
import io.nyala.common.proto.master.DeleteTableResponsePB;
import io.nyala.common.proto.master.GetClusterKeyStatusRequestPB;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.GetMasterRegistrationResponsePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import io.nyala.common.proto.master.IsAlterTableDoneRequestPB;
import io.nyala.common.proto.master.IsAlterTableDoneResponsePB;
import io.nyala.common.proto.master.IsCreateTableDoneRequestPB;
import io.nyala.common.proto.master.IsCreateTableDoneResponsePB;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.proto.master.ListMastersRequestPB;
import io.nyala.common.proto.master.ListMastersResponsePB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.RotateClusterKeyRequestPB;
import io.nyala.common.proto.master.RotateClusterKeyResponsePB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.rpc.Rpcs;
import io.nyala.common.rpc.SerializedResponses;
import io.nyala.common.security.authz.Caller;
import io.nyala.master.authn.TokenIssuer;
import io.nyala.master.ca.CertificateIssuer;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.CatalogState;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.ratis.protocol.RaftPeer;

/**
 * The master's gRPC service. Every handler goes through {@link Rpcs#respond} (or its async
 * form), so any failure, bad input included, becomes the response's error and never escapes.
 * DDL, heartbeats and locations need the ready leader; registration and the master list answer
 * on any master.
 */
final class MasterService extends MasterServiceGrpc.MasterServiceImplBase {
  private final MasterServer server;
  private final CatalogManager catalog;
  private final TSManager tsManager;
  private final HeartbeatHandler heartbeats;
  private final TokenIssuer tokens;

  private final ClusterKeyRotator keyRotator;
  private final CertificateIssuer certificates;

  /** Where calls that began on a transport thread do their blocking work. */
  private final Executor serviceThreads;

  MasterService(MasterServer server, CatalogManager catalog, TSManager tsManager,
      HeartbeatHandler heartbeats, TokenIssuer tokens, ClusterKeyRotator keyRotator,
      CertificateIssuer certificates, Executor serviceThreads) {
    this.serviceThreads = serviceThreads;
    this.keyRotator = keyRotator;
    this.certificates = certificates;
    this.tokens = tokens;
    this.server = server;
    this.catalog = catalog;
    this.tsManager = tsManager;
    this.heartbeats = heartbeats;
  }

  @Override
  public void tSHeartbeat(TSHeartbeatRequestPB req, StreamObserver<TSHeartbeatResponsePB> out) {
    Rpcs.respond(out, () -> {
      // A tablet server registers only as the server its certificate names, when it names one
      // by uuid (docs/architecture.md, "Who may call what").
      Caller c = Caller.current();
      String uuid = req.getRegistration().getUuid();
      if (c.contradicts(uuid)) {
        throw NyalaException.notAuthorized("heartbeat of tablet server '%s' refused: the "
            + "certificate of %s names another server", uuid, c);
      }
      return heartbeats.handle(req);
    }, e -> TSHeartbeatResponsePB.newBuilder()
        .setError(e).setMasterUuid(server.uuid()).setLeaderMaster(false).build());
  }

  @Override
  public void authenticate(AuthenticateRequestPB req,
      StreamObserver<AuthenticateResponsePB> out) {
    Rpcs.respond(out, () -> {
      catalog.checkLeaderReady();
      return tokens.authenticate(req);
    }, e -> AuthenticateResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void createTable(CreateTableRequestPB req, StreamObserver<CreateTableResponsePB> out) {
    Rpcs.respond(out, () -> CreateTableResponsePB.newBuilder()
            .setTableId(catalog.createTable(req)).build(),
        e -> CreateTableResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void isCreateTableDone(IsCreateTableDoneRequestPB req,
      StreamObserver<IsCreateTableDoneResponsePB> out) {
    Rpcs.respond(out, () -> IsCreateTableDoneResponsePB.newBuilder()
            .setDone(catalog.isCreateTableDone(req.getTable())).build(),
        e -> IsCreateTableDoneResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void deleteTable(DeleteTableRequestPB req, StreamObserver<DeleteTableResponsePB> out) {
    Rpcs.respond(out, () -> {
      catalog.deleteTable(req.getTable(), req.getRequestId());
      return DeleteTableResponsePB.getDefaultInstance();
    }, e -> DeleteTableResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void alterTable(AlterTableRequestPB req, StreamObserver<AlterTableResponsePB> out) {
    Rpcs.respond(out, () -> catalog.alterTable(req),
        e -> AlterTableResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void isAlterTableDone(IsAlterTableDoneRequestPB req,
      StreamObserver<IsAlterTableDoneResponsePB> out) {
    Rpcs.respond(out, () -> catalog.isAlterTableDone(req.getTable()),
        e -> IsAlterTableDoneResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void listTables(ListTablesRequestPB req, StreamObserver<ListTablesResponsePB> out) {
    Rpcs.respond(out, () -> catalog.listTables(req.getNameFilter()),
        e -> ListTablesResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void getTableSchema(GetTableSchemaRequestPB req,
      StreamObserver<GetTableSchemaResponsePB> out) {
    Rpcs.respond(out, () -> catalog.getTableSchema(req.getTable()),
        e -> GetTableSchemaResponsePB.newBuilder().setError(e).build());
  }

  /**
   * This service as the master serves it: the generated binding but for GetTableLocations,
   * whose answers go out as the bytes the locations cache holds ({@link #tableLocations}).
   */
  BindableService withSerializedLocations() {
    return () -> SerializedResponses.serve(bindService(),
        MasterServiceGrpc.getGetTableLocationsMethod(),
        ServerCalls.asyncUnaryCall(this::tableLocations));
  }

  /**
   * GetTableLocations, on the transport thread that received it (docs/performance.md,
   * "Locations over RPC"): a cache hit, or a refusal that needs nothing blocking, is answered
   * here; anything else (a miss reads the catalog) goes to the service threads. Either way the
   * answer is the serialized response, sent as it is.
   */
  private void tableLocations(GetTableLocationsRequestPB req, StreamObserver<ByteString> out) {
    ByteString answer;
    try {
      answer = server.cachedTableLocations(req);
    } catch (RuntimeException e) {
      answer = tableLocationsError(Rpcs.toError(e));
    }
    if (answer != null) {
      out.onNext(answer);
      out.onCompleted();
      return;
    }
    Rpcs.respondAsync(out,
        () -> CompletableFuture.supplyAsync(() -> server.tableLocations(req), serviceThreads),
        MasterService::tableLocationsError);
  }

  private static ByteString tableLocationsError(ErrorPB e) {
    return GetTableLocationsResponsePB.newBuilder().setError(e).build().toByteString();
  }

  @Override
  public void listTabletServers(ListTabletServersRequestPB req,
      StreamObserver<ListTabletServersResponsePB> out) {
    Rpcs.respond(out, () -> {
      catalog.checkLeaderReady();
      Map<String, Integer> counts = catalog.replicaCounts();
      Map<String, ReplicaReports.HotCold> hotCold = catalog.reports().hotColdByTserver();
      ListTabletServersResponsePB.Builder b = ListTabletServersResponsePB.newBuilder();
      for (TSDescriptor d : tsManager.all()) {
        ReplicaReports.HotCold hc = hotCold.getOrDefault(d.uuid(), ReplicaReports.HotCold.NONE);
        b.addServers(ListTabletServersResponsePB.Entry.newBuilder()
            .setTsInfo(d.toTsInfo())
            .setLive(tsManager.isLive(d))
            .setMillisSinceHeartbeat(tsManager.millisSinceHeartbeat(d))
            .setNumReplicas(counts.getOrDefault(d.uuid(), 0))
            .setNumLiveTablets(d.numLiveTablets())
            .setNumAwakeReplicas(hc.awake())
            .setNumHibernatedReplicas(hc.hibernated())
            .setNumDataDirs(d.numDataDirs()).addAllFailedDataDirs(d.failedDataDirs()));
      }
      return b.build();
    }, e -> ListTabletServersResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void listMasters(ListMastersRequestPB req, StreamObserver<ListMastersResponsePB> out) {
    Rpcs.respond(out, () -> {
      SysCatalog sys = catalog.catalog();
      RaftPeer leader = sys.leaderPeer();
      ListMastersResponsePB.Builder b = ListMastersResponsePB.newBuilder();
      for (RaftPeer p : sys.peers()) {
        String uuid = p.getId().toString();
        ServerRegistrationPB reg = uuid.equals(server.uuid()) ? server.registration()
            : ServerRegistrationPB.newBuilder()
                .setUuid(uuid)
                .setRaftAddress(HostPort.parse(p.getAddress(), 0).toPb())
                .setRpcAddress(HostPort.parse(p.getClientAddress(), 0).toPb())
                .build();
        boolean isLeader = leader != null && leader.getId().equals(p.getId());
        b.addMasters(ListMastersResponsePB.Entry.newBuilder().setRegistration(reg)
            .setRole(isLeader ? RaftRolePB.LEADER : RaftRolePB.FOLLOWER));
      }
      return b.build();
    }, e -> ListMastersResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void getMasterRegistration(GetMasterRegistrationRequestPB req,
      StreamObserver<GetMasterRegistrationResponsePB> out) {
    Rpcs.respond(out, () -> GetMasterRegistrationResponsePB.newBuilder()
            .setRegistration(server.registration())
            .setRole(catalog.catalog().role())
            .setClusterId(catalog.catalog().read(CatalogState::clusterId))
            .build(),
        e -> GetMasterRegistrationResponsePB.newBuilder().setError(e).build());
  }

  /** Starts a cluster key rotation (docs/encryption.md, "Rotating the cluster key"). */
  @Override
  public void rotateClusterKey(RotateClusterKeyRequestPB req,
      StreamObserver<RotateClusterKeyResponsePB> out) {
    Rpcs.respond(out, () -> RotateClusterKeyResponsePB.newBuilder()
            .setVersion(keyRotator.rotate(req.getNewVersion())).build(),
        e -> RotateClusterKeyResponsePB.newBuilder().setError(e).build());
  }

  /** Where a rotation stands, as this master sees it; answered by any master. */
  @Override
  public void getClusterKeyStatus(GetClusterKeyStatusRequestPB req,
      StreamObserver<GetClusterKeyStatusResponsePB> out) {
    Rpcs.respond(out, keyRotator::status,
        e -> GetClusterKeyStatusResponsePB.newBuilder().setError(e).build());
  }

  /** Signs a server's certificate request that proves membership; needs the ready leader. */
  @Override
  public void issueCertificate(IssueCertificateRequestPB req,
      StreamObserver<IssueCertificateResponsePB> out) {
    Rpcs.respond(out, () -> {
      catalog.checkLeaderReady();
      return certificates.issue(req, Caller.current().toString());
    }, e -> IssueCertificateResponsePB.newBuilder().setError(e).build());
  }
}
