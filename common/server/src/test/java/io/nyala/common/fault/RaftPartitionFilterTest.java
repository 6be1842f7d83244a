package io.nyala.common.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Server;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Raft partition filter on Ratis' shaded gRPC over loopback, installed the way servers
 * install it (through Ratis' services customizer), in front of a stand-in for Ratis' server
 * protocol service that answers every request: a unary vote and a stream of appends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RaftPartitionFilterTest {
  private final NetworkFaults faults = new NetworkFaults("ts-1");
  private final AtomicInteger appendsServed = new AtomicInteger();
  private final CountDownLatch appendStreamEnded = new CountDownLatch(1);
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    Parameters parameters = new Parameters();
    RaftPartitionFilter.install(parameters, faults);
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new AnsweringService());
    server = GrpcConfigKeys.Server.servicesCustomizer(parameters)
        .customize(b, EnumSet.of(GrpcServices.Type.SERVER)).build().start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
        .build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void votesOfCutOffPeersAreDroppedUntilHealed() {
    assertThat(vote("b")).isNotNull();
    faults.block(List.of("b"));
    StatusRuntimeException e = catchThrowableOfType(
        StatusRuntimeException.class, () -> vote("b"));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription())
        .isEqualTo("network partition injected: ts-1 does not hear from b");
    assertThat(vote("c")).as("a peer not cut off").isNotNull();
    assertThat(faults.droppedCalls()).isEqualTo(1);
    faults.heal();
    assertThat(vote("b")).isNotNull();
  }

  @Test
  void appendStreamOfCutOffPeerEndsUnavailableAndItsHandlerEnds() throws Exception {
    LinkedBlockingQueue<AppendEntriesReplyProto> replies = new LinkedBlockingQueue<>();
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    StreamObserver<AppendEntriesRequestProto> stream = RaftServerProtocolServiceGrpc
        .newStub(channel).appendEntries(new StreamObserver<>() {
          @Override
          public void onNext(AppendEntriesReplyProto r) {
            replies.add(r);
          }

          @Override
          public void onError(Throwable t) {
            ended.complete(t);
          }

          @Override
          public void onCompleted() {
            ended.complete(null);
          }
        });
    stream.onNext(append("b"));
    assertThat(replies.poll(30, TimeUnit.SECONDS)).as("reply before the cut").isNotNull();

    faults.block(List.of("b"));
    stream.onNext(append("b"));
    Throwable t = ended.get(30, TimeUnit.SECONDS);
    assertThat(Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(Status.fromThrowable(t).getDescription()).contains("does not hear from b");
    assertThat(appendStreamEnded.await(30, TimeUnit.SECONDS))
        .as("the service's side of the stream was ended").isTrue();
    assertThat(appendsServed).hasValue(1);
    assertThat(replies).isEmpty();
  }

  private RequestVoteReplyProto vote(String from) {
    return RaftServerProtocolServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .requestVote(RequestVoteRequestProto.newBuilder().setServerRequest(from(from)).build());
  }

  private static AppendEntriesRequestProto append(String from) {
    return AppendEntriesRequestProto.newBuilder().setServerRequest(from(from)).build();
  }

  private static RaftRpcRequestProto from(String peer) {
    return RaftRpcRequestProto.newBuilder()
        .setRequestorId(RaftPeerId.valueOf(peer).toByteString()).build();
  }

  /** Answers every vote and every append, as Ratis' service would, and notes a stream's end. */
  private final class AnsweringService
      extends RaftServerProtocolServiceGrpc.RaftServerProtocolServiceImplBase {
    @Override
    public void requestVote(RequestVoteRequestProto req,
        StreamObserver<RequestVoteReplyProto> out) {
      out.onNext(RequestVoteReplyProto.getDefaultInstance());
      out.onCompleted();
    }

    @Override
    public StreamObserver<AppendEntriesRequestProto> appendEntries(
        StreamObserver<AppendEntriesReplyProto> out) {
      return new StreamObserver<>() {
        @Override
        public void onNext(AppendEntriesRequestProto req) {
          appendsServed.incrementAndGet();
          out.onNext(AppendEntriesReplyProto.getDefaultInstance());
        }

        @Override
        public void onError(Throwable t) {
          appendStreamEnded.countDown();
        }

        @Override
        public void onCompleted() {
          appendStreamEnded.countDown();
          out.onCompleted();
        }
      };
    }
  }
}
