package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.HostPort;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.fault.FaultInjectionServiceGrpc;
import io.nyala.common.proto.fault.SetPartitionRequestPB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.common.proto.tserver.BeginTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.EndTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.FetchDataRequestPB;
import io.nyala.common.proto.tserver.HibernateReplicaRequestPB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.TabletCopyServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.tls.CertFiles;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may call what, end to end (docs/architecture.md, "Who may call what"): on a TLS
 * minicluster (which runs {@code --rpc_authentication=required}) every admin RPC from a caller
 * that trusts the CA but presents no certificate is refused with PERMISSION_DENIED naming the
 * method and the caller, changes nothing, and is counted in {@code rpc_unauthorized_total}; a
 * caller presenting a server's certificate is served; and Ratis' admin and client protocols
 * refuse a Ratis client without a certificate of the CA.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class AuthzIT {
  private static final String TABLE = "guarded";
  private static final int ROWS = 50;

  @TempDir
  static Path tmp;

  private static MiniCluster cluster;
  private static NyalaClient client;
  private static X509Certificate ca;
  private static final List<ManagedChannel> CHANNELS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().numTabletServers(1).tls(true)
        .tserverFlag("--unlock_unsafe_flags").tserverFlag("--fault_enable_network_partitions")
        .dataRoot(tmp.resolve("cluster")).build();
    client = cluster.newClient();
    NyalaTable table = client.createTable(TABLE, TestRows.schema(), new CreateTableOptions()
        .addHashPartitions(List.of("key"), 2).setNumReplicas(1));
    TestRows.insert(client, table, 0, ROWS);
    ca = Pem.readCertificate(Files.readString(cluster.trustedCaFile()), "ca");
  }

  @AfterAll
  static void stop() {
    CHANNELS.forEach(ManagedChannel::shutdownNow);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyAdminCallOfAnAnonymousCallerIsRefusedChangesNothingAndIsCounted() throws Exception {
    String tablet = cluster.tablets().tabletIds(TABLE).get(0);
    ManagedChannel ts = channel(cluster.tabletServer(0).rpcAddress(), TlsContexts.forClient(ca));
    ManagedChannel master = channel(cluster.master(0).rpcAddress(), TlsContexts.forClient(ca));
    Map<String, Runnable> calls = adminCalls(ts, master, tablet);
    String before = snapshot();
    Map<String, Double> countedBefore = new TreeMap<>();
    calls.keySet().forEach(m -> countedBefore.put(m, unauthorized(server(m), bare(m))));

    calls.forEach((method, call) -> assertThatThrownBy(call::run).as(method)
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED))
        .hasMessageContaining(method + " needs a server identity")
        .hasMessageContaining("caller is anonymous client 127."));

    assertThat(snapshot()).isEqualTo(before);
    assertThat(TestRows.scanAll(client, client.openTable(TABLE))).hasSize(ROWS);
    calls.keySet().forEach(m -> assertThat(unauthorized(server(m), bare(m))).as(m)
        .isEqualTo(countedBefore.get(m) + 1));
  }

  @Test
  void aCallerPresentingAServersCertificateIsServed() throws Exception {
    ManagedChannel ts = channel(cluster.tabletServer(0).rpcAddress(),
        TlsContexts.forClient(ca, credentials(cluster.tabletServer(0).name())));
    // Harmless: the handler runs (no PERMISSION_DENIED) and finds no such tablet.
    var r = TabletServerAdminServiceGrpc.newBlockingStub(ts).withDeadlineAfter(20,
        TimeUnit.SECONDS).deleteTablet(DeleteTabletRequestPB.newBuilder()
            .setTabletId("no-such-tablet").setTabletDropped(true).build());
    assertThat(r.getError().getCode()).as("%s", r).isIn(StatusCodePB.NOT_FOUND, StatusCodePB.OK);
    // The minicluster's own admin calls present its harness certificate.
    String tablet = cluster.tablets().tabletIds(TABLE).get(0);
    assertThat(cluster.tablets().awaitLeader(tablet, Duration.ofSeconds(30)))
        .isNotNull();
  }

  @Test
  void ratisAdminAndClientProtocolsRefuseClientsWithoutACertificateOfTheCa() throws Exception {
    ServerInfo m = cluster.master(0);
    HostPort raft = cluster.inProcessMaster(0).raftAddress();
    RaftPeer peer = RaftPeer.newBuilder().setId(RaftIds.peerId(m.uuid()))
        .setAddress(raft.toString()).build();
    RaftGroup catalog = RaftGroup.valueOf(SysCatalog.GROUP_ID, peer);
    Path otherDir = tmp.resolve("other-ca");
    CertFiles.createCa(otherDir);
    CertFiles.ServerFiles stranger = CertFiles.createServer(otherDir, "stranger",
        List.of("127.0.0.1"));
    Map<String, GrpcTlsConfig> refused = new LinkedHashMap<>();
    refused.put("plaintext", null);
    refused.put("TLS without a certificate", new GrpcTlsConfig(null, null, List.of(ca), false));
    refused.put("a certificate of another CA", TlsContexts.forRatis(new ServerCredentials(
        Pem.readPrivateKey(Files.readString(stranger.keyFile()), "stranger.key"),
        Pem.readCertificates(Files.readString(stranger.certFile()), "stranger.crt")), ca));

    for (Map.Entry<String, GrpcTlsConfig> e : refused.entrySet()) {
      try (RaftClient c = ratisClient(catalog, e.getValue())) {
        assertThatThrownBy(() -> c.getGroupManagementApi(peer.getId())
            .remove(SysCatalog.GROUP_ID, false, false))
            .as("group removal over %s", e.getKey()).isInstanceOf(Exception.class);
        assertThatThrownBy(() -> c.io().send(Message.valueOf("not a catalog batch")))
            .as("catalog write over %s", e.getKey()).isInstanceOf(Exception.class);
      }
    }

    // The master's own certificate passes, so the refusals above were the TLS layer's; the
    // catalog group is still there and serves.
    try (RaftClient c = ratisClient(catalog,
        TlsContexts.forRatis(credentials(m.name()), ca))) {
      RaftClientReply info = c.getGroupManagementApi(peer.getId()).info(SysCatalog.GROUP_ID);
      assertThat(info.isSuccess()).as("%s", info).isTrue();
    }
    assertThat(client.listTables()).contains(TABLE);
  }

  /** One call of each admin RPC, keyed by its full method name. */
  private static Map<String, Runnable> adminCalls(ManagedChannel ts, ManagedChannel master,
      String tablet) {
    var admin = TabletServerAdminServiceGrpc.newBlockingStub(ts)
        .withDeadlineAfter(30, TimeUnit.SECONDS);
    var copy = TabletCopyServiceGrpc.newBlockingStub(ts).withDeadlineAfter(30, TimeUnit.SECONDS);
    String svc = "nyala.tserver.TabletServerAdminService/";
    String copySvc = "nyala.tserver.TabletCopyService/";
    Map<String, Runnable> calls = new LinkedHashMap<>();
    calls.put(svc + "CreateTablet", () -> admin.createTablet(CreateTabletRequestPB.newBuilder()
        .setTableId("t-forged").setTableName("forged").setTabletId("forged-tablet").build()));
    calls.put(svc + "DeleteTablet", () -> admin.deleteTablet(DeleteTabletRequestPB.newBuilder()
        .setTabletId(tablet).setTabletDropped(true).setReason("forged").build()));
    calls.put(svc + "TransferLeadership", () -> admin.transferLeadership(
        TransferLeadershipRequestPB.newBuilder().setTabletId(tablet).build()));
    calls.put(svc + "ChangeConfig", () -> admin.changeConfig(ChangeConfigRequestPB.newBuilder()
        .setTabletId(tablet).setType(ChangeConfigTypePB.REMOVE_PEER)
        .setRemoveUuid(cluster.tabletServer(0).uuid()).build()));
    calls.put(svc + "AlterSchema", () -> admin.alterSchema(AlterSchemaRequestPB.newBuilder()
        .setTabletId(tablet).setNewTableName("renamed").build()));
    calls.put(svc + "HibernateReplica", () -> admin.hibernateReplica(
        HibernateReplicaRequestPB.newBuilder().setTabletId(tablet).build()));
    calls.put(svc + "WakeReplica", () -> admin.wakeReplica(
        WakeReplicaRequestPB.newBuilder().setTabletId(tablet).build()));
    calls.put(copySvc + "BeginTabletCopySession", () -> copy.beginTabletCopySession(
        BeginTabletCopySessionRequestPB.newBuilder().setTabletId(tablet).build()));
    calls.put(copySvc + "FetchData", () -> copy.fetchData(
        FetchDataRequestPB.newBuilder().setSessionId("s").setItemId("i").build()));
    calls.put(copySvc + "EndTabletCopySession", () -> copy.endTabletCopySession(
        EndTabletCopySessionRequestPB.newBuilder().setSessionId("s").build()));
    calls.put("nyala.fault.FaultInjectionService/SetPartition", () -> FaultInjectionServiceGrpc
        .newBlockingStub(ts).withDeadlineAfter(30, TimeUnit.SECONDS).setPartition(
            SetPartitionRequestPB.newBuilder().addBlockedPeerUuids(cluster.master(0).uuid())
                .build()));
    calls.put("nyala.master.MasterService/TSHeartbeat", () -> MasterServiceGrpc
        .newBlockingStub(master).withDeadlineAfter(30, TimeUnit.SECONDS).tSHeartbeat(
            TSHeartbeatRequestPB.newBuilder().setRegistration(ServerRegistrationPB.newBuilder()
                .setUuid("forged-tserver").setName("forged")).build()));
    return calls;
  }

  /**
   * The tables, tablet servers and the tablet server's replicas with their states, read with
   * the harness's certificate: client calls need a user or a server.
   */
  private static String snapshot() throws Exception {
    SslContext observer = TlsContexts.forClient(ca, credentials("minicluster-harness"));
    var replicas = TabletServerServiceGrpc.newBlockingStub(
            channel(cluster.tabletServer(0).rpcAddress(), observer))
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .listTablets(ListTabletsRequestPB.getDefaultInstance()).getTabletsList().stream()
        .map(t -> t.getTabletId() + "=" + t.getState() + "@" + t.getTableName()).sorted()
        .toList();
    var servers = MasterServiceGrpc.newBlockingStub(
            channel(cluster.master(0).rpcAddress(), observer))
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .listTabletServers(ListTabletServersRequestPB.getDefaultInstance()).getServersList()
        .stream().map(e -> e.getTsInfo().getUuid()).sorted().toList();
    return "tables " + client.listTables().stream().sorted().toList() + ", tablets "
        + cluster.tablets().tabletIds(TABLE) + ", tablet servers " + servers + ", replicas "
        + replicas;
  }

  /** Who serves a method: the master for MasterService, else the tablet server. */
  private static ServerInfo server(String fullMethod) {
    return fullMethod.startsWith("nyala.master.") ? cluster.master(0) : cluster.tabletServer(0);
  }

  private static String bare(String fullMethod) {
    return fullMethod.substring(fullMethod.indexOf('/') + 1);
  }

  /** {@code rpc_unauthorized_total{method=...}} on {@code server}'s /metrics page; 0 if absent. */
  private static double unauthorized(ServerInfo server, String method) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create(server.webUrl() + "/metrics"))
          .timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      Matcher m = Pattern.compile("(?m)^rpc_unauthorized_total\\{[^}]*method=\"" + method
          + "\"[^}]*\\} ([0-9.eE+-]+)$").matcher(r.body());
      return m.find() ? Double.parseDouble(m.group(1)) : 0;
    } catch (Exception e) {
      throw new AssertionError("cannot read " + server.webUrl() + "/metrics", e);
    }
  }

  private static ManagedChannel channel(HostPort addr, SslContext tls) {
    ManagedChannel c = NettyChannelBuilder.forAddress(addr.host(), addr.port()).sslContext(tls)
        .build();
    CHANNELS.add(c);
    return c;
  }

  /** The credentials the minicluster made for its server {@code name}. */
  private static ServerCredentials credentials(String name) throws Exception {
    Path dir = cluster.dataRoot().resolve("tls");
    return new ServerCredentials(
        Pem.readPrivateKey(Files.readString(dir.resolve(name + ".key")), name + ".key"),
        Pem.readCertificates(Files.readString(dir.resolve(name + ".crt")), name + ".crt"));
  }

  /** A Ratis client of {@code group} with {@code tls} (null: plaintext), never retrying. */
  private static RaftClient ratisClient(RaftGroup group, GrpcTlsConfig tls) {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(10, TimeUnit.SECONDS));
    Parameters params = new Parameters();
    if (tls != null) {
      TlsContexts.applyToRatis(params, tls);
    }
    return RaftClient.newBuilder().setProperties(p).setParameters(params).setRaftGroup(group)
        .setRetryPolicy(RetryPolicies.noRetry())
        .setLeaderId(group.getPeers().iterator().next().getId()).build();
  }
}
