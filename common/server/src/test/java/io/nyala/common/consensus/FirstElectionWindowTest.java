package io.nyala.common.consensus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real three-peer Ratis group on loopback whose vote requests each take longer than the whole
 * first-election range (as on a loaded box): Ratis alone never elects, with the watcher it does.
 */
@Timeout(60)
class FirstElectionWindowTest {
  /** Longer than the first-election range RaftSettings derives from a 1-2 s election timeout. */
  private static final long VOTE_DELAY_MS = 250;

  @TempDir
  Path dir;

  @Test
  void aGroupWhoseVotesAreSlowElectsOnceItsFirstElectionIsEnded() throws Exception {
    long before = FirstElectionWindow.ended();
    try (Group g = new Group(dir.resolve("watched"))) {
      g.servers.forEach(FirstElectionWindow::watchAll);
      await("a leader, with each vote taking " + VOTE_DELAY_MS + " ms")
          .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
          .until(() -> g.leader() != null);
    }
    assertThat(FirstElectionWindow.ended() - before).isPositive();
  }

  /**
   * The Ratis behaviour the watcher exists for. If this starts failing, a Ratis upgrade fixed it
   * and FirstElectionWindow can go (docs/dense-nodes.md, "Ratis traps").
   */
  @Test
  void withoutTheWatcherRatisKeepsTheShortWindowAndNeverElects() throws Exception {
    try (Group g = new Group(dir.resolve("unwatched"))) {
      // Proving an absence: three seconds are thirty first-election rounds.
      Thread.sleep(3_000);
      assertThat(g.leader()).as("a leader while every round waits under %d ms for votes",
          VOTE_DELAY_MS).isNull();
    }
  }

  /** Three started servers of one group, each delaying every vote request it receives. */
  private static final class Group implements AutoCloseable {
    final List<RaftServer> servers = new ArrayList<>();
    final RaftGroupId id = RaftGroupId.randomId();

    Group(Path root) throws IOException {
      List<RaftPeer> peers = new ArrayList<>();
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int port = freePort();
        ports.add(port);
        peers.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(UUID.randomUUID().toString()))
            .setAddress("127.0.0.1:" + port).build());
      }
      RaftGroup group = RaftGroup.valueOf(id, peers);
      try {
        for (int i = 0; i < 3; i++) {
          RaftProperties p = RaftSettings.forServer(root.resolve("s" + i).toFile(),
              new HostPort("127.0.0.1", ports.get(i)), 1000, 2000, Map.of());
          Parameters params = new Parameters();
          GrpcConfigKeys.Server.setServicesCustomizer(params, new SlowVotes());
          RaftServer s = RaftServer.newBuilder().setServerId(peers.get(i).getId())
              .setProperties(p).setParameters(params).setGroup(group)
              .setStateMachine(new BaseStateMachine())
              .setOption(RaftStorage.StartupOption.FORMAT).build();
          servers.add(s);
        }
        for (RaftServer s : servers) {
          s.start();
        }
      } catch (IOException | RuntimeException e) {
        close();
        throw e;
      }
    }

    RaftPeerId leader() throws IOException {
      for (RaftServer s : servers) {
        RaftServer.Division d = s.getDivision(id);
        if (d.getInfo().isLeader()) {
          return s.getId();
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      for (RaftServer s : servers) {
        s.close();
      }
    }
  }

  /** Holds each vote request before Ratis sees it. */
  private static final class SlowVotes implements GrpcServices.Customizer, ServerInterceptor {
    @Override
    public NettyServerBuilder customize(NettyServerBuilder builder,
        EnumSet<GrpcServices.Type> types) {
      return builder.intercept(this);
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
        ServerCallHandler<Q, A> next) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onMessage(Q message) {
          if (message instanceof RequestVoteRequestProto) {
            try {
              Thread.sleep(VOTE_DELAY_MS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          super.onMessage(message);
        }
      };
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
