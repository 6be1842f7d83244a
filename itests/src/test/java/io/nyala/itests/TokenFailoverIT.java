package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.HostPort;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.token.TokenSigner;
import io.nyala.minicluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token signing keys kept in the sys catalog (docs/architecture.md, "Client tokens"): on a TLS
 * minicluster of three masters with a cluster key, a client authenticates once and keeps
 * writing to the tablet servers and calling the leader master with that token through a
 * failover and a restart of every master, never authenticating again (the masters'
 * {@code authn_tokens_issued_total}); every acknowledged row is read back. A token signed by a
 * key the cluster never stored is still refused, by the new leader and by a tablet server.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TokenFailoverIT {
  private static final String ISSUED = "authn_tokens_issued_total";

  @TempDir
  Path tmp;

  private final List<ManagedChannel> channels = new ArrayList<>();

  @Test
  void oneTokenOutlivesAFailoverAndARestartOfEveryMaster() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().numMasters(3).numTabletServers(3)
            .tls(true).encryption(true).tserverFlag("--heartbeat_interval_ms=300")
            .dataRoot(tmp.resolve("cluster")).build();
        NyalaClient client = NyalaClient.builder(cluster.masterAddresses())
            .trustedCaFile(cluster.trustedCaFile())
            .credentials(cluster.credentials().user(), cluster.credentials().password())
            .defaultOperationTimeoutMs(30_000).defaultAdminOperationTimeoutMs(30_000)
            .build()) {
      NyalaTable table = client.createTable("kept", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));
      TestRows.insert(client, table, 0, 100);
      long[] issuedBefore = issued(cluster);
      int leader = cluster.leaderMasterIndex();
      assertThat(issuedBefore[leader]).as("the client authenticated with the leader")
          .isPositive();

      cluster.stopMaster(leader);
      await("a new leader master").atMost(Duration.ofSeconds(30))
          .until(() -> cluster.leaderMasterIndex() >= 0);
      TestRows.insert(client, table, 100, 200);
      cluster.waitForTabletServers(); // a new table needs the tablet servers registered
      client.createTable("after-failover", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(3));
      assertThat(client.tableExists("after-failover")).isTrue();
      long[] afterFailover = issued(cluster);
      for (int i = 0; i < 3; i++) {
        if (i != leader) {
          assertThat(afterFailover[i]).as("tokens master %d issued after the failover", i)
              .isEqualTo(issuedBefore[i]);
        }
      }
      assertForgedTokenRefused(cluster);

      cluster.startMaster(leader);
      for (int i = 0; i < 3; i++) {
        cluster.stopMaster(i);
      }
      for (int i = 0; i < 3; i++) {
        cluster.startMaster(i);
      }
      await("a leader after restarting every master").atMost(Duration.ofSeconds(60))
          .until(() -> cluster.leaderMasterIndex() >= 0);
      cluster.waitForTabletServers();
      TestRows.insert(client, table, 200, 300);
      NyalaTable late = client.createTable("after-restart", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(3));
      TestRows.insert(client, late, 0, 10);
      assertThat(issued(cluster)).as("tokens issued since every master restarted")
          .containsOnly(0);

      Map<Long, String> rows = TestRows.scanAll(client, table);
      assertThat(rows).hasSize(300);
      for (long k = 0; k < 300; k++) {
        assertThat(rows.get(k)).as("acknowledged row %d", k).isEqualTo(TestRows.expected(k));
      }
      assertThat(TestRows.scanAll(client, late)).hasSize(10);
      assertForgedTokenRefused(cluster);
    } finally {
      channels.forEach(ManagedChannel::shutdownNow);
    }
  }

  /** Each master's {@value #ISSUED}; -1 for one that does not answer. */
  private static long[] issued(MiniCluster cluster) {
    long[] out = new long[cluster.numMasters()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (long) ServerMetrics.value(cluster.master(i), ISSUED);
    }
    return out;
  }

  /**
   * A token of the cluster's user signed by a fresh signer, whose keys the catalog never held
   * (its seq is one the catalog does hold), is refused by the leader and a tablet server.
   */
  private void assertForgedTokenRefused(MiniCluster cluster) {
    SignedTokenPB forged = new TokenSigner(System::currentTimeMillis, 60_000, 600_000)
        .sign(cluster.credentials().user());
    HostPort master = cluster.master(cluster.leaderMasterIndex()).rpcAddress();
    assertThatThrownBy(() -> MasterServiceGrpc.newBlockingStub(channel(cluster, master))
        .withInterceptors(bearer(forged)).withDeadlineAfter(20, TimeUnit.SECONDS)
        .listTables(ListTablesRequestPB.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED))
        .hasMessageContaining("forged or from another cluster");
    HostPort tserver = cluster.tabletServer(0).rpcAddress();
    assertThatThrownBy(() -> TabletServerServiceGrpc.newBlockingStub(channel(cluster, tserver))
        .withInterceptors(bearer(forged)).withDeadlineAfter(20, TimeUnit.SECONDS)
        .listTablets(ListTabletsRequestPB.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED))
        .hasMessageContaining("forged or from another cluster");
  }

  private static io.grpc.ClientInterceptor bearer(SignedTokenPB token) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + Base64.getEncoder().encodeToString(token.toByteArray()));
    return MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  private ManagedChannel channel(MiniCluster cluster, HostPort to) {
    try {
      ManagedChannel c = NettyChannelBuilder.forAddress(to.host(), to.port())
          .sslContext(TlsContexts.forClient(Pem.readCertificate(
              Files.readString(cluster.trustedCaFile()), "ca"))).build();
      channels.add(c);
      return c;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
