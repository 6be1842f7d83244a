package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.tls.CertFiles;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the wire end to end (docs/architecture.md, "TLS on the wire"): a cluster of server
 * processes started with {@code --rpc_encryption=required} and certificates of one CA serves a
 * client that trusts that CA, its Raft groups replicate over mutual TLS, and a plaintext client,
 * a client trusting another CA and a plaintext caller of a Raft port are refused.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TlsIT {
  private static final int ROWS = 200;

  @TempDir
  static Path tmp;

  private static MiniCluster cluster;

  @BeforeAll
  static void start() {
    cluster = MiniCluster.builder().numTabletServers(3).tls(true)
        .processMode(ProcessMode.EXTERNAL).dataRoot(tmp.resolve("cluster")).build();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aClientTrustingTheCaWritesAndScansAndRaftReplicatesOverTls() {
    NyalaClient client = cluster.newClient();
    NyalaTable table = client.createTable("tls", TestRows.schema(), new CreateTableOptions()
        .addHashPartitions(List.of("key"), 2).setNumReplicas(3));
    TestRows.insert(client, table, 0, ROWS);
    Map<Long, String> expected = new TreeMap<>();
    LongStream.range(0, ROWS).forEach(k -> expected.put(k, TestRows.expected(k)));
    assertThat(TestRows.scanAll(client, table)).isEqualTo(expected);

    try (TabletProbe probe = new TabletProbe(cluster)) {
      Set<Long> keys = expected.keySet().stream().collect(Collectors.toSet());
      ReplicaScans.assertEveryReplicaHolds(probe, probe.tabletIds("tls"), 3, keys,
          " written over TLS");
    }
  }

  @Test
  void aPlaintextClientIsRefused() {
    try (NyalaClient plain = NyalaClient.builder(cluster.masterAddresses())
        .defaultAdminOperationTimeoutMs(3_000).build()) {
      assertThatThrownBy(plain::listTables).isInstanceOf(NyalaException.class)
          .hasMessageContaining(cluster.masterAddresses())
          .hasMessageContaining("requires TLS").hasMessageContaining("trustedCaFile");
    }
  }

  @Test
  void aClientTrustingAnotherCaIsRefusedNamingTheServerAndTls() {
    Path otherCa = CertFiles.createCa(tmp.resolve("other-ca"));
    try (NyalaClient stranger = NyalaClient.builder(cluster.masterAddresses())
        .trustedCaFile(otherCa).defaultAdminOperationTimeoutMs(10_000).build()) {
      assertThatThrownBy(stranger::listTables).isInstanceOfSatisfying(NyalaException.class,
          e -> assertThat(e.code()).isEqualTo(StatusCode.RUNTIME_ERROR))
          .hasMessageContaining("TLS handshake with " + cluster.masterAddresses() + " failed")
          .hasMessageContaining("certificate")
          .hasMessageContaining(otherCa.toString());
    }
  }

  @Test
  void aRaftPortServesOnlyPeersWithACertificateOfTheCa() throws Exception {
    HostPort raft = raftAddressOfTabletServer(0);
    X509Certificate ca = Pem.readCertificate(Files.readString(cluster.trustedCaFile()), "ca");
    assertThat(healthCode(raft, null)).as("plaintext call to Raft port %s", raft)
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(healthCode(raft, TlsContexts.forClient(ca)))
        .as("TLS call without a certificate to Raft port %s", raft)
        .isEqualTo(Status.Code.UNAVAILABLE);
    // With a server's certificate the handshake passes and Ratis answers: it serves no
    // health service, so the refusals above were the TLS layer's.
    Path dir = cluster.dataRoot().resolve("tls");
    ServerCredentials peer = new ServerCredentials(
        Pem.readPrivateKey(Files.readString(dir.resolve("ts-2.key")), "ts-2.key"),
        Pem.readCertificates(Files.readString(dir.resolve("ts-2.crt")), "ts-2.crt"));
    assertThat(healthCode(raft, TlsContexts.forClient(ca, peer)))
        .as("TLS call with a peer's certificate to Raft port %s", raft)
        .isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  /** The gRPC code of a health check on {@code addr}: TLS with {@code tls}, or plaintext. */
  private static Status.Code healthCode(HostPort addr, SslContext tls) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(addr.host(), addr.port());
    ManagedChannel ch = (tls == null ? b.usePlaintext() : b.sslContext(tls)).build();
    try {
      HealthGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance());
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    } finally {
      ch.shutdownNow();
    }
  }

  /**
   * Tablet server {@code index}'s Raft address, as the master knows it (asked over TLS with the
   * harness's certificate: ListTabletServers needs a user or a server).
   */
  private static HostPort raftAddressOfTabletServer(int index) throws Exception {
    HostPort master = cluster.masterHostPorts().get(0);
    X509Certificate ca = Pem.readCertificate(Files.readString(cluster.trustedCaFile()), "ca");
    Path tls = cluster.dataRoot().resolve("tls");
    ServerCredentials harness = new ServerCredentials(
        Pem.readPrivateKey(Files.readString(tls.resolve("minicluster-harness.key")), "key"),
        Pem.readCertificates(Files.readString(tls.resolve("minicluster-harness.crt")), "crt"));
    ManagedChannel ch = NettyChannelBuilder.forAddress(master.host(), master.port())
        .sslContext(TlsContexts.forClient(ca, harness)).build();
    try {
      ListTabletServersResponsePB r = MasterServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .listTabletServers(ListTabletServersRequestPB.getDefaultInstance());
      String uuid = cluster.tabletServer(index).uuid();
      return r.getServersList().stream().filter(e -> e.getTsInfo().getUuid().equals(uuid))
          .map(e -> HostPort.fromPb(e.getTsInfo().getRaftAddress())).findFirst().orElseThrow();
    } finally {
      ch.shutdownNow();
    }
  }
}
