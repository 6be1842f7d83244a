package io.nyala.common.security.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import io.nyala.common.consensus.FirstElectionWindow;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.net.TestPorts;
import java.io.IOException;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ratis over mutual TLS through {@link SwappableKeyManager}s ({@link TlsContexts#forRatis}): a
 * real three-peer group on loopback elects and applies an entry; every peer's certificate is
 * swapped while it runs; then a follower's RaftServer restarts (its peers reconnect to it, it
 * presents its new certificate and they theirs) and a new Ratis client writes again. Each peer's
 * trust manager records the certificates it verified, which shows that the connections made
 * after the swap carried only the new certificates.
 */
@Timeout(180)
class RatisCertificateSwapTest {
  private static final TestPki PKI = new TestPki("ratis-swap");

  @TempDir
  Path dir;

  private final List<Peer> peers = new ArrayList<>();
  private RaftGroup group;

  @AfterEach
  void stop() throws IOException {
    for (Peer p : peers) {
      if (p.server != null) {
        p.server.close();
      }
    }
  }

  @Test
  void peersSwapCertificatesWhileRunningAndNewConnectionsPresentTheNewOnes() throws Exception {
    startGroup();
    await().atMost(Duration.ofSeconds(60)).until(() -> leader() != null);
    write("before the swap");

    List<BigInteger> before = new ArrayList<>();
    List<BigInteger> after = new ArrayList<>();
    for (Peer p : peers) {
      before.add(p.keys.current().leaf().getSerialNumber());
      ServerCredentials next = PKI.renewed(p.keys.current());
      p.keys.swap(next);
      after.add(next.leaf().getSerialNumber());
      p.trust.clear();
    }
    RaftPeerId leader = leaderId();
    Peer restarted = peers.stream().filter(p -> !p.server.getId().equals(leader))
        .findFirst().orElseThrow();
    restarted.server.close();
    restarted.start(RaftStorage.StartupOption.RECOVER);

    Recording clientTrust = write("after the swap");
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      for (Peer p : peers) {
        assertThat(p.machine.applied).containsExactly("before the swap", "after the swap");
      }
    });

    assertThat(restarted.trust.clients).as("peers reconnecting to the restarted one")
        .containsAnyElementsOf(after).doesNotContainAnyElementsOf(before);
    List<BigInteger> othersSaw = peers.stream().filter(p -> p != restarted)
        .flatMap(p -> p.trust.all().stream()).toList();
    assertThat(othersSaw).as("what the peers that kept running verified since the swap")
        .contains(restarted.keys.current().leaf().getSerialNumber())
        .doesNotContainAnyElementsOf(before);
    assertThat(clientTrust.servers).as("a new Ratis client's view of the leader")
        .isNotEmpty().isSubsetOf(after);
  }

  private void startGroup() throws IOException {
    List<RaftPeer> raftPeers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      raftPeers.add(RaftPeer.newBuilder()
          .setId(RaftPeerId.valueOf(UUID.randomUUID().toString()))
          .setAddress("127.0.0.1:" + TestPorts.freePort()).build());
    }
    group = RaftGroup.valueOf(RaftGroupId.randomId(), raftPeers);
    for (int i = 0; i < 3; i++) {
      Peer p = new Peer(raftPeers.get(i), dir.resolve("s" + i));
      peers.add(p);
      p.start(RaftStorage.StartupOption.FORMAT);
    }
  }

  /** Sends {@code text} with a new Ratis client; returns what its trust manager verified. */
  private Recording write(String text) throws IOException {
    Recording trust = new Recording();
    Parameters params = new Parameters();
    TlsContexts.applyToRatis(params, new GrpcTlsConfig(new SwappableKeyManager(PKI.server()),
        trust, true));
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(10, TimeUnit.SECONDS));
    try (RaftClient client = RaftClient.newBuilder().setProperties(p).setParameters(params)
        .setRaftGroup(group).setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(
            50, TimeDuration.ONE_SECOND)).build()) {
      RaftClientReply reply = client.io().send(Message.valueOf(text));
      assertThat(reply.isSuccess()).as("reply %s", reply).isTrue();
    }
    return trust;
  }

  private RaftPeerId leader() throws IOException {
    for (Peer p : peers) {
      if (p.server.getDivision(group.getGroupId()).getInfo().isLeader()) {
        return p.server.getId();
      }
    }
    return null;
  }

  private RaftPeerId leaderId() throws IOException {
    RaftPeerId id = leader();
    assertThat(id).as("a leader").isNotNull();
    return id;
  }

  /** One peer: its key manager and trust manager outlive a restart of its RaftServer. */
  private final class Peer {
    final RaftPeer peer;
    final Path storage;
    final SwappableKeyManager keys = new SwappableKeyManager(PKI.server());
    final Recording trust = new Recording();
    /** A new one per start: a restarted server replays the whole log into it. */
    AppliedRecorder machine;
    RaftServer server;

    Peer(RaftPeer peer, Path storage) {
      this.peer = peer;
      this.storage = storage;
    }

    void start(RaftStorage.StartupOption option) throws IOException {
      int port = Integer.parseInt(peer.getAddress().substring("127.0.0.1:".length()));
      RaftProperties p = RaftSettings.forServer(storage.toFile(),
          new HostPort("127.0.0.1", port), 1000, 2000, Map.of());
      Parameters params = new Parameters();
      TlsContexts.applyToRatis(params, new GrpcTlsConfig(keys, trust, true));
      machine = new AppliedRecorder();
      server = RaftServer.newBuilder().setServerId(peer.getId()).setProperties(p)
          .setParameters(params).setGroup(group).setStateMachine(machine)
          .setOption(option).build();
      server.start();
      FirstElectionWindow.watchAll(server);
    }
  }

  /** The CA's trust manager, recording the leaf serial of every chain it accepted. */
  private static final class Recording extends X509ExtendedTrustManager {
    final X509ExtendedTrustManager ca = TlsContexts.trustManager(PKI.ca.certificate());
    final List<BigInteger> clients = new CopyOnWriteArrayList<>();
    final List<BigInteger> servers = new CopyOnWriteArrayList<>();

    void clear() {
      clients.clear();
      servers.clear();
    }

    List<BigInteger> all() {
      List<BigInteger> out = new ArrayList<>(clients);
      out.addAll(servers);
      return out;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String auth, Socket s)
        throws CertificateException {
      ca.checkClientTrusted(chain, auth, s);
      clients.add(serial(chain));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String auth, Socket s)
        throws CertificateException {
      ca.checkServerTrusted(chain, auth, s);
      servers.add(serial(chain));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String auth, SSLEngine e)
        throws CertificateException {
      ca.checkClientTrusted(chain, auth, e);
      clients.add(serial(chain));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String auth, SSLEngine e)
        throws CertificateException {
      ca.checkServerTrusted(chain, auth, e);
      servers.add(serial(chain));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String auth)
        throws CertificateException {
      ca.checkClientTrusted(chain, auth);
      clients.add(serial(chain));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String auth)
        throws CertificateException {
      ca.checkServerTrusted(chain, auth);
      servers.add(serial(chain));
    }

    private static BigInteger serial(X509Certificate[] chain) {
      return chain[0].getSerialNumber();
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return ca.getAcceptedIssuers();
    }
  }
}
