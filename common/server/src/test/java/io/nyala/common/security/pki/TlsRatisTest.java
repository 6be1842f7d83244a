package io.nyala.common.security.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import io.nyala.common.consensus.FirstElectionWindow;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.net.TestPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real three-peer Ratis group on loopback whose peers talk mutual TLS with certificates of the
 * internal CA elects a leader and applies an entry from a Ratis client that presents one too; a
 * client without TLS, or with a certificate of another CA, gets nothing written.
 */
@Timeout(120)
class TlsRatisTest {
  private static final TestPki PKI = new TestPki("ratis");

  @TempDir
  Path dir;

  private final List<RaftServer> servers = new ArrayList<>();
  private final List<AppliedRecorder> machines = new ArrayList<>();
  private RaftGroup group;

  @AfterEach
  void stop() throws IOException {
    for (RaftServer s : servers) {
      s.close();
    }
  }

  @Test
  void aGroupWithMutualTlsElectsAndAppliesAnEntryOfATlsClient() throws Exception {
    startGroup();
    await().atMost(Duration.ofSeconds(60)).until(() -> leader() != null);

    try (RaftClient client = client(tlsParameters(PKI.server(), PKI),
        RetryPolicies.retryUpToMaximumCountWithFixedSleep(50, TimeDuration.ONE_SECOND), null)) {
      RaftClientReply reply = client.io().send(Message.valueOf("hello over tls"));
      assertThat(reply.isSuccess()).as("reply %s", reply).isTrue();
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      for (AppliedRecorder m : machines) {
        assertThat(m.applied).containsExactly("hello over tls");
      }
    });
  }

  @Test
  void clientsWithoutACertificateOfTheCaWriteNothing() throws Exception {
    startGroup();
    await().atMost(Duration.ofSeconds(60)).until(() -> leader() != null);
    TestPki other = new TestPki("ratis");

    for (Parameters params : List.of(new Parameters(), tlsParameters(other.server(), other))) {
      try (RaftClient client = client(params, RetryPolicies.noRetry(), leader())) {
        assertThatThrownBy(() -> client.io().send(Message.valueOf("refused")))
            .isInstanceOf(IOException.class).hasMessageContaining("UNAVAILABLE");
      }
    }
    for (AppliedRecorder m : machines) {
      assertThat(m.applied).isEmpty();
    }
  }

  private void startGroup() throws IOException {
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      peers.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(UUID.randomUUID().toString()))
          .setAddress("127.0.0.1:" + TestPorts.freePort()).build());
    }
    group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
    for (int i = 0; i < 3; i++) {
      RaftPeer peer = peers.get(i);
      int port = Integer.parseInt(peer.getAddress().substring("127.0.0.1:".length()));
      RaftProperties p = RaftSettings.forServer(dir.resolve("s" + i).toFile(),
          new HostPort("127.0.0.1", port), 1000, 2000, Map.of());
      AppliedRecorder machine = new AppliedRecorder();
      machines.add(machine);
      servers.add(RaftServer.newBuilder().setServerId(peer.getId()).setProperties(p)
          .setParameters(tlsParameters(PKI.server(), PKI)).setGroup(group).setStateMachine(machine)
          .setOption(RaftStorage.StartupOption.FORMAT).build());
    }
    for (RaftServer s : servers) {
      s.start();
      FirstElectionWindow.watchAll(s);
    }
  }

  private static Parameters tlsParameters(ServerCredentials creds, TestPki pki) {
    Parameters params = new Parameters();
    TlsContexts.applyToRatis(params, TlsContexts.forRatis(creds, pki.ca.certificate()));
    return params;
  }

  /** A Ratis client of the group, sending first to {@code leader} if not null. */
  private RaftClient client(Parameters params, RetryPolicy retry, RaftPeerId leader) {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(10, TimeUnit.SECONDS));
    return RaftClient.newBuilder().setProperties(p).setParameters(params).setRaftGroup(group)
        .setRetryPolicy(retry).setLeaderId(leader).build();
  }

  private RaftPeerId leader() throws IOException {
    for (RaftServer s : servers) {
      if (s.getDivision(group.getGroupId()).getInfo().isLeader()) {
        return s.getId();
      }
    }
    return null;
  }
}
