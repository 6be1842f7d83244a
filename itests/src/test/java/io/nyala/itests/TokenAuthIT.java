package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.client.authn.UserCredentials;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.master.AuthenticateRequestPB;
import io.nyala.common.proto.master.AuthenticateResponsePB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.minicluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client authentication by signed tokens, end to end (docs/architecture.md, "Who may call
 * what"), on a TLS minicluster whose tokens live {@value #VALIDITY_MS} ms and whose signing key
 * rotates every {@value #ROTATION_MS} ms: a client with credentials writes and scans through
 * many expiries and rotations; one without is refused NOT_AUTHORIZED; a token with a flipped
 * signature byte is refused by the master and by the tablet server, which checks it offline.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TokenAuthIT {
  private static final long VALIDITY_MS = 3_000;
  private static final long ROTATION_MS = 4_000;
  private static final String TABLE = "guarded";

  @TempDir
  static Path tmp;

  private static MiniCluster cluster;
  private static NyalaClient client;
  private static NyalaTable table;
  private static final List<ManagedChannel> CHANNELS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().numTabletServers(1).tls(true)
        .masterFlag("--authn_token_validity_ms=" + VALIDITY_MS)
        .masterFlag("--token_signing_key_rotation_ms=" + ROTATION_MS)
        .dataRoot(tmp.resolve("cluster")).build();
    client = cluster.newClient();
    table = client.createTable(TABLE, TestRows.schema(), new CreateTableOptions()
        .addHashPartitions(List.of("key"), 2).setNumReplicas(1));
  }

  @AfterAll
  static void stop() {
    CHANNELS.forEach(ManagedChannel::shutdownNow);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aLongSessionOutlivesSeveralTokenExpiriesAndKeyRotations() {
    AtomicLong next = new AtomicLong(1_000);
    long start = System.nanoTime();
    long span = TimeUnit.MILLISECONDS.toNanos(3 * ROTATION_MS);
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).until(() -> {
      long k = next.getAndIncrement();
      TestRows.insert(client, table, k, k + 1);
      return System.nanoTime() - start > span;
    });
    assertThat(TestRows.scanAll(client, table).keySet())
        .filteredOn(k -> k >= 1_000).hasSize((int) (next.get() - 1_000));
  }

  @Test
  void aClientWithoutCredentialsIsRefusedAndToldToPassThem() {
    try (NyalaClient anonymous = NyalaClient.builder(cluster.masterAddresses())
        .trustedCaFile(cluster.trustedCaFile()).build()) {
      assertThatThrownBy(anonymous::listTables)
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED))
          .hasMessageContaining("ListTables needs an authenticated user: pass credentials");
    }
  }

  @Test
  void aWrongPasswordIsRefusedWithoutSayingWhichHalfWasWrong() {
    try (NyalaClient wrong = NyalaClient.builder(cluster.masterAddresses())
        .trustedCaFile(cluster.trustedCaFile())
        .credentials(cluster.credentials().user(), "not-the-password").build()) {
      assertThatThrownBy(wrong::listTables)
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_AUTHORIZED))
          .hasMessageContaining("cannot authenticate user 'minicluster-user'")
          .hasMessageContaining("wrong user name or password")
          .hasMessageNotContaining("not-the-password");
    }
  }

  @Test
  void aForgedTokenIsRefusedByTheMasterAndTheTabletServer() throws Exception {
    HostPort master = cluster.master(0).rpcAddress();
    HostPort tserver = cluster.tabletServer(0).rpcAddress();
    SignedTokenPB token = authenticate(master, cluster.credentials());
    // A genuine token passes the tablet server's offline check.
    TabletServerServiceGrpc.newBlockingStub(channel(tserver)).withInterceptors(bearer(token))
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .listTablets(ListTabletsRequestPB.getDefaultInstance());

    byte[] sig = token.getSignature().toByteArray();
    sig[sig.length / 2] ^= 0x01;
    SignedTokenPB forged = token.toBuilder().setSignature(ByteString.copyFrom(sig)).build();
    assertThatThrownBy(() -> MasterServiceGrpc.newBlockingStub(channel(master))
        .withInterceptors(bearer(forged)).withDeadlineAfter(20, TimeUnit.SECONDS)
        .listTables(ListTablesRequestPB.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED))
        .hasMessageContaining("token of user 'minicluster-user' has a bad signature")
        .hasMessageContaining("forged or from another cluster");
    assertThatThrownBy(() -> TabletServerServiceGrpc.newBlockingStub(channel(tserver))
        .withInterceptors(bearer(forged)).withDeadlineAfter(20, TimeUnit.SECONDS)
        .listTablets(ListTabletsRequestPB.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED))
        .hasMessageContaining("forged or from another cluster");
  }

  private static SignedTokenPB authenticate(HostPort master, UserCredentials user) {
    AuthenticateResponsePB r = MasterServiceGrpc.newBlockingStub(channel(master))
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .authenticate(AuthenticateRequestPB.newBuilder().setUser(user.user())
            .setPassword(user.password()).build());
    assertThat(r.hasError()).as("%s", r.getError()).isFalse();
    return r.getToken();
  }

  private static io.grpc.ClientInterceptor bearer(SignedTokenPB token) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + Base64.getEncoder().encodeToString(token.toByteArray()));
    return MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  private static ManagedChannel channel(HostPort to) {
    try {
      ManagedChannel c = NettyChannelBuilder.forAddress(to.host(), to.port())
          .sslContext(TlsContexts.forClient(Pem.readCertificate(
              Files.readString(cluster.trustedCaFile()), "ca"))).build();
      CHANNELS.add(c);
      return c;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
