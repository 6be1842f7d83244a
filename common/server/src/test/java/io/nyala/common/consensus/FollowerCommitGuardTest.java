package io.nyala.common.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto.AppendResult;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.proto.RaftProtos.TermIndexProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real Ratis follower on loopback, sent the append requests of two successive leaders of its
 * group the way Ratis' leaders send them: leader A's entry at index 0 (term 10), then leader C's
 * heartbeat without a previous entry and commit index 0, then C's own index 0 (term 11). The
 * test plays both leaders over Ratis' own server protocol.
 */
@Timeout(60)
class FollowerCommitGuardTest {
  @TempDir
  Path dir;

  @Test
  void withTheGuardTheFollowerTakesTheNewLeadersEntry() throws Exception {
    try (Follower f = new Follower(dir.resolve("guarded"), true)) {
      assertThat(f.append(f.a, 10, List.of(entry(10, 0)), -1)).isEqualTo(AppendResult.SUCCESS);
      assertThat(f.append(f.c, 11, List.of(), 0)).isEqualTo(AppendResult.SUCCESS);
      assertThat(f.committed()).as("index 0 after a heartbeat that matched nothing").isEqualTo(-1);
      assertThat(f.append(f.c, 11, List.of(entry(11, 0)), 0)).isEqualTo(AppendResult.SUCCESS);
      assertThat(f.termAt0()).isEqualTo(11);
      assertThat(f.committed()).isEqualTo(0);
    }
  }

  /**
   * The Ratis behaviour the guard exists for. If this starts failing, a Ratis upgrade fixed it
   * and FollowerCommitGuard can go (docs/architecture.md, "A follower commits only what its
   * leader matched").
   */
  @Test
  void withoutTheGuardTheFollowerCommitsTheOldEntryAndRefusesTheNewLeaders() throws Exception {
    try (Follower f = new Follower(dir.resolve("unguarded"), false)) {
      assertThat(f.append(f.a, 10, List.of(entry(10, 0)), -1)).isEqualTo(AppendResult.SUCCESS);
      assertThat(f.append(f.c, 11, List.of(), 0)).isEqualTo(AppendResult.SUCCESS);
      assertThat(f.committed()).as("leader A's entry, which leader C never had").isEqualTo(0);
      assertThat(f.append(f.c, 11, List.of(entry(11, 0)), 0))
          .isEqualTo(AppendResult.INCONSISTENCY);
      assertThat(f.termAt0()).isEqualTo(10);
    }
  }

  @Test
  void capsOnlyRequestsWithoutAPreviousEntry() {
    AppendEntriesRequestProto heartbeat = request(List.of(), 5, false);
    assertThat(FollowerCommitGuard.guard(heartbeat).getLeaderCommit()).isEqualTo(-1);
    AppendEntriesRequestProto fromStart = request(List.of(entry(3, 0), entry(3, 1)), 5, false);
    assertThat(FollowerCommitGuard.guard(fromStart).getLeaderCommit()).isEqualTo(1);
    AppendEntriesRequestProto withPrevious = request(List.of(), 5, true);
    assertThat(FollowerCommitGuard.guard(withPrevious)).isSameAs(withPrevious);
    AppendEntriesRequestProto behind = request(List.of(entry(3, 0), entry(3, 1)), 0, false);
    assertThat(FollowerCommitGuard.guard(behind)).isSameAs(behind);
  }

  private static AppendEntriesRequestProto request(List<LogEntryProto> entries, long commit,
      boolean previous) {
    AppendEntriesRequestProto.Builder b = AppendEntriesRequestProto.newBuilder().setLeaderTerm(3)
        .addAllEntries(entries).setLeaderCommit(commit);
    if (previous) {
      b.setPreviousLog(TermIndexProto.newBuilder().setTerm(3).setIndex(7));
    }
    return b.build();
  }

  private static LogEntryProto entry(long term, long index) {
    return LogEntryProto.newBuilder().setTerm(term).setIndex(index)
        .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
            .setLogData(ByteString.copyFromUtf8("t" + term)).setCallId(index)
            .setClientId(ClientId.randomId().toByteString()))
        .build();
  }

  /** A started Ratis server, peer b of group {a, b, c}; a and c run nowhere. */
  private static final class Follower implements AutoCloseable {
    final RaftPeerId a = peerId();
    final RaftPeerId b = peerId();
    final RaftPeerId c = peerId();
    final RaftGroupId group = RaftGroupId.randomId();
    final RaftServer server;
    final ManagedChannel channel;
    long callId;

    Follower(Path root, boolean guarded) throws IOException {
      int port = freePort();
      List<RaftPeer> peers = List.of(peer(a, freePort()), peer(b, port), peer(c, freePort()));
      // Long timeouts: b must not stand while the test plays its leaders.
      RaftProperties p = RaftSettings.forServer(root.toFile(), new HostPort("127.0.0.1", port),
          20_000, 30_000, Map.of());
      Parameters params = new Parameters();
      if (guarded) {
        FollowerCommitGuard.install(params);
      }
      server = RaftServer.newBuilder().setServerId(b).setProperties(p).setParameters(params)
          .setGroup(RaftGroup.valueOf(group, peers)).setStateMachine(new BaseStateMachine())
          .setOption(RaftStorage.StartupOption.FORMAT).build();
      server.start();
      channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    /** One append request from {@code leader}, without a previous entry; its answer. */
    AppendResult append(RaftPeerId leader, long term, List<LogEntryProto> entries, long commit)
        throws InterruptedException {
      LinkedBlockingQueue<Object> answers = new LinkedBlockingQueue<>();
      StreamObserver<AppendEntriesRequestProto> out = RaftServerProtocolServiceGrpc
          .newStub(channel).appendEntries(new StreamObserver<>() {
            @Override
            public void onNext(AppendEntriesReplyProto reply) {
              answers.add(reply);
            }

            @Override
            public void onError(Throwable t) {
              answers.add(t);
            }

            @Override
            public void onCompleted() {}
          });
      out.onNext(AppendEntriesRequestProto.newBuilder()
          .setServerRequest(RaftRpcRequestProto.newBuilder().setRequestorId(leader.toByteString())
              .setReplyId(b.toByteString()).setCallId(++callId)
              .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(group.toByteString())))
          .setLeaderTerm(term).addAllEntries(entries).setLeaderCommit(commit).build());
      Object answer = answers.poll(20, TimeUnit.SECONDS);
      out.onCompleted();
      assertThat(answer).as("the follower's answer").isInstanceOf(AppendEntriesReplyProto.class);
      return ((AppendEntriesReplyProto) answer).getResult();
    }

    long committed() throws IOException {
      return server.getDivision(group).getRaftLog().getLastCommittedIndex();
    }

    long termAt0() throws IOException {
      return server.getDivision(group).getRaftLog().getTermIndex(0).getTerm();
    }

    @Override
    public void close() throws Exception {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.close();
    }
  }

  private static RaftPeerId peerId() {
    return RaftPeerId.valueOf(UUID.randomUUID().toString().replace("-", ""));
  }

  private static RaftPeer peer(RaftPeerId id, int port) {
    return RaftPeer.newBuilder().setId(id).setAddress("127.0.0.1:" + port).build();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
