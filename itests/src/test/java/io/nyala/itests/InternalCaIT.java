package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The cluster's internal CA end to end (docs/architecture.md, "TLS and the internal CA"): three
 * masters given the operator's CA and its key ({@code --tls_ca_key_file}), which import it and
 * issue their own certificates ({@code CN=<uuid>}), and a tablet server given only {@code
 * --trusted_ca_file}, which gets its certificate from the leader before it serves (the
 * minicluster's {@code tserverCertificatesFromMaster}; it makes no certificate for any server).
 * The tablet server registers and serves a write and a read; its key is sealed and owner-only;
 * after the leader master stops, the new leader issues it a certificate of the same CA and it
 * serves the rows again. The old leader, restarted without the CA key and without its
 * certificate, asks the new leader for one; once the new leader stops too, it and the third
 * master elect a leader and the catalog is served again. A request without a proof of
 * membership is refused over the wire, and a tablet server with another cluster key fails to
 * start, naming the refusal.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class InternalCaIT {
  private static final int ROWS = 100;

  @TempDir
  Path tmp;

  @Test
  void serversGetTheirCertificatesFromTheCaAndSurviveFailovers() throws Exception {
    Path root = tmp.resolve("cluster");
    try (MiniCluster cluster = MiniCluster.builder().dataRoot(root).numMasters(3)
        .numTabletServers(1).encryption(true).tserverCertificatesFromMaster(true).build()) {
      cluster.start();
      ServerInfo ts = cluster.tabletServer(0);
      Path tsTls = root.resolve(ts.name()).resolve("wal").resolve("tls");
      X509Certificate ca = Pem.readCertificate(Files.readString(cluster.trustedCaFile()), "ca");
      X509Certificate first = leaf(tsTls);
      first.verify(ca.getPublicKey());
      String uuid = cluster.inProcessTabletServer(0).uuid();
      assertThat(first.getSubjectX500Principal().getName()).isEqualTo("CN=" + uuid);
      assertKeySealedAndOwnerOnly(tsTls.resolve("server.key"));
      assertThat(root.resolve("tls").resolve(ts.name() + ".crt"))
          .as("the minicluster made no certificate for %s", ts.name()).doesNotExist();
      for (int i = 0; i < 3; i++) {
        ServerInfo m = cluster.master(i);
        X509Certificate own = leaf(tlsDir(root, m));
        own.verify(ca.getPublicKey());
        assertThat(own.getSubjectX500Principal().getName())
            .isEqualTo("CN=" + cluster.inProcessMaster(i).uuid());
        assertKeySealedAndOwnerOnly(tlsDir(root, m).resolve("server.key"));
        assertThat(root.resolve("tls").resolve(m.name() + ".crt"))
            .as("%s issued its own", m.name()).doesNotExist();
      }

      NyalaClient client = cluster.newClient();
      NyalaTable table = client.createTable("ca", TestRows.schema(), new CreateTableOptions()
          .addHashPartitions(List.of("key"), 2).setNumReplicas(1));
      TestRows.insert(client, table, 0, ROWS);
      Map<Long, String> expected = new TreeMap<>();
      LongStream.range(0, ROWS).forEach(k -> expected.put(k, TestRows.expected(k)));
      assertThat(TestRows.scanAll(client, table)).isEqualTo(expected);

      int leader = cluster.leaderMasterIndex();
      cluster.stopMaster(leader);
      AtomicInteger newLeader = new AtomicInteger(-1);
      await("a new leader master").atMost(Duration.ofSeconds(60)).until(() -> {
        newLeader.set(cluster.leaderMasterIndex());
        return newLeader.get() >= 0 && newLeader.get() != leader;
      });
      int next = newLeader.get();
      assertThat(cluster.inProcessMaster(next).certAuthority().certificate())
          .as("the new leader's CA").isEqualTo(ca);
      // Without its stored certificate the tablet server must ask the new leader again.
      Files.delete(tsTls.resolve("server.crt"));
      cluster.restartTabletServer(0);
      X509Certificate second = leaf(tsTls);
      second.verify(ca.getPublicKey());
      assertThat(second.getSerialNumber()).as("a new certificate")
          .isNotEqualTo(first.getSerialNumber());
      assertThat(second.getPublicKey()).as("for the same stored key")
          .isEqualTo(first.getPublicKey());
      await("the rows served again").atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .until(() -> TestRows.scanAll(client, table).equals(expected));

      masterRestartedWithoutTheCaKey(cluster, root, leader, ca);
      cluster.stopMaster(next);
      AtomicInteger third = new AtomicInteger(-1);
      // The restarted master and the third must elect: it is in the mutual-TLS Raft group.
      await("a leader of the restarted master and the third").atMost(Duration.ofSeconds(60))
          .until(() -> {
            third.set(cluster.leaderMasterIndex());
            return third.get() >= 0 && third.get() != next;
          });
      await("the catalog served again").atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .until(() -> TestRows.scanAll(client, table).equals(expected));

      refusesARequestWithoutProof(cluster, third.get(), ca, uuid);
      refusesATabletServerOfAnotherClusterKey(cluster, ts);
    }
  }

  /**
   * Restarts master {@code index} without the CA key and without its stored certificate: it
   * asks the leader for a new one, for the same stored key.
   */
  private static void masterRestartedWithoutTheCaKey(MiniCluster cluster, Path root, int index,
      X509Certificate ca) throws Exception {
    ServerInfo m = cluster.master(index);
    X509Certificate before = leaf(tlsDir(root, m));
    Files.delete(tlsDir(root, m).resolve("server.crt"));
    cluster.setMasterFlags(index, "--tls_ca_key_file=");
    cluster.startMaster(index);
    X509Certificate after = leaf(tlsDir(root, m));
    after.verify(ca.getPublicKey());
    assertThat(after.getSubjectX500Principal().getName())
        .isEqualTo("CN=" + cluster.inProcessMaster(index).uuid());
    assertThat(after.getSerialNumber()).as("a new certificate")
        .isNotEqualTo(before.getSerialNumber());
    assertThat(after.getPublicKey()).as("for the same stored key")
        .isEqualTo(before.getPublicKey());
  }

  private static Path tlsDir(Path root, ServerInfo server) {
    return root.resolve(server.name()).resolve("wal").resolve("tls");
  }

  private static X509Certificate leaf(Path tsTls) throws Exception {
    return Pem.readCertificates(Files.readString(tsTls.resolve("server.crt")), "server.crt")
        .get(0);
  }

  private static void assertKeySealedAndOwnerOnly(Path key) throws Exception {
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key.getParent())))
        .isEqualTo("rwx------");
    assertThat(new String(Files.readAllBytes(key), StandardCharsets.ISO_8859_1))
        .as("sealed under the server key").doesNotContain("PRIVATE KEY");
  }

  /** A raw request over TLS without a certificate, as a stranger would send it. */
  private static void refusesARequestWithoutProof(MiniCluster cluster, int leader,
      X509Certificate ca, String uuid) {
    HostPort m = cluster.master(leader).rpcAddress();
    ManagedChannel ch = NettyChannelBuilder.forAddress(m.host(), m.port())
        .sslContext(TlsContexts.forClient(ca)).build();
    try {
      IssueCertificateResponsePB resp = MasterServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .issueCertificate(IssueCertificateRequestPB.newBuilder().setCsrDer(ByteString.copyFrom(
              Csr.create(EcKeys.generate(), uuid, List.of("127.0.0.1")).toDer())).build());
      NyalaException e = NyalaException.fromPb(resp.getError());
      assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED);
      assertThat(e.getMessage()).contains("certificate request of server '" + uuid + "'")
          .contains("anonymous client").contains("no proof of cluster membership");
      assertThat(resp.getChainDerCount()).isZero();
    } finally {
      ch.shutdownNow();
    }
  }

  /** A tablet server whose cluster key is another cluster's cannot prove membership. */
  private static void refusesATabletServerOfAnotherClusterKey(MiniCluster cluster,
      ServerInfo member) {
    Path dir = cluster.dataRoot().resolve("stranger");
    Path otherKey = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256).file();
    TserverOptions o = new TserverOptions();
    new CommandLine(o).parseArgs("--fs_wal_dir=" + dir.resolve("wal"),
        "--rpc_bind_addresses=" + member.rpcAddress().host() + ":0",
        "--raft_bind_address=" + member.rpcAddress().host() + ":0", "--webserver_port=-1",
        "--master_addresses=" + cluster.masterAddresses(),
        "--rpc_encryption=required", "--rpc_authentication=required",
        "--trusted_ca_file=" + cluster.trustedCaFile(),
        "--encrypt_data_at_rest=true", "--encryption_key_file=" + otherKey,
        "--tls_certificate_request_timeout_ms=30000");
    TabletServer stranger = new TabletServer(o);
    assertThatThrownBy(stranger::start).isInstanceOfSatisfying(NyalaException.class,
        e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED))
        .hasMessageContaining("refused its certificate request")
        .hasMessageContaining("proof of membership does not verify");
    assertThat(Files.exists(dir.resolve("wal").resolve("tls").resolve("server.crt"))).isFalse();
  }
}
