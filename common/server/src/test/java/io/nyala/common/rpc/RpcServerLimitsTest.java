package io.nyala.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.metrics.MetricRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a burst of requests may cost a server is bounded (docs/data-safety.md, "Input"): calls
 * beyond threads + queue length are answered UNAVAILABLE at once instead of queued, and the
 * server serves again as soon as calls finish; a message over the size limit is refused.
 */
@Timeout(20)
class RpcServerLimitsTest {
  private static final MethodDescriptor<byte[], byte[]> HOLD =
      MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Hold/Hold").setRequestMarshaller(RawBytes.MARSHALLER)
          .setResponseMarshaller(RawBytes.MARSHALLER).build();

  /** A call that holds its service thread until {@link #release} opens. */
  private static final MethodDescriptor<byte[], byte[]> BLOCK = HOLD.toBuilder()
      .setFullMethodName("test.Hold/Block").build();
  private final CountDownLatch release = new CountDownLatch(1);
  /** Answers at once, naming the thread that served it. */
  private static final MethodDescriptor<byte[], byte[]> ECHO = HOLD.toBuilder()
      .setFullMethodName("test.Hold/Echo").build();
  /**
   * On the transport threads: an empty request is answered there with the thread's name, any
   * other is handed to the service threads, which answer theirs and whether they ran in the
   * call's gRPC context.
   */
  private static final MethodDescriptor<byte[], byte[]> INLINE = HOLD.toBuilder()
      .setFullMethodName("test.Hold/Inline").build();
  /** Methods given threads of their own before the server starts. */
  private List<MethodDescriptor<?, ?>> ownMethods = List.of();

  /** Calls the service holds unanswered, as an async Write waiting for Raft would. */
  private final ConcurrentLinkedQueue<StreamObserver<byte[]>> held = new ConcurrentLinkedQueue<>();
  private RpcServer server;
  private ManagedChannel channel;

  private void start(int threads, int queueLength, int maxMessageBytes) {
    BindableService service = () -> ServerServiceDefinition.builder("test.Hold")
        .addMethod(HOLD, ServerCalls.asyncUnaryCall((req, out) -> held.add(out)))
        .addMethod(BLOCK, ServerCalls.asyncUnaryCall((req, out) -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          out.onNext(req);
          out.onCompleted();
        }))
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((req, out) -> {
          out.onNext(Thread.currentThread().getName().getBytes(StandardCharsets.UTF_8));
          out.onCompleted();
        }))
        .addMethod(INLINE, ServerCalls.asyncUnaryCall((req, out) -> {
          if (req.length == 0) {
            out.onNext(Thread.currentThread().getName().getBytes(StandardCharsets.UTF_8));
            out.onCompleted();
            return;
          }
          Context call = Context.current();
          server.serviceThreads().execute(() -> {
            String where = Thread.currentThread().getName()
                + (Context.current() == call ? " in the call's context" : " elsewhere");
            out.onNext(where.getBytes(StandardCharsets.UTF_8));
            out.onCompleted();
          });
        })).build();
    server = new RpcServer("ts-test", new HostPort("127.0.0.1", 0), threads, queueLength,
        maxMessageBytes, new MetricRegistry("ts-test"));
    server.addService(service);
    if (!ownMethods.isEmpty()) {
      server.ownThreads("own", 1, ownMethods);
    }
    server.onTransportThreads(List.of(INLINE));
    server.start();
    HostPort a = server.boundAddress();
    channel = NettyChannelBuilder.forAddress(a.host(), a.port()).usePlaintext().build();
  }

  private Future<byte[]> call(byte[] request) {
    return ClientCalls.futureUnaryCall(channel.newCall(HOLD,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), request);
  }

  private void answerAll() {
    for (StreamObserver<byte[]> o; (o = held.poll()) != null; ) {
      o.onNext(new byte[] {1});
      o.onCompleted();
    }
  }

  @AfterEach
  void stop() {
    release.countDown();
    answerAll();
    if (channel != null) {
      channel.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void callsBeyondThreadsAndQueueAreServiceUnavailableNotQueued() throws Exception {
    start(1, 2, 1 << 20);
    List<Future<byte[]>> admitted = List.of(call(new byte[8]), call(new byte[8]),
        call(new byte[8]));
    await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 3);

    Future<byte[]> over = call(new byte[8]);
    assertThatThrownBy(() -> over.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).contains("ts-test is overloaded")
              .contains("limit 3").contains("--rpc_service_queue_length");
        });

    answerAll();
    for (Future<byte[]> f : admitted) {
      assertThat(f.get(10, TimeUnit.SECONDS)).containsExactly(1);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> server.callsInFlight() == 0);
    Future<byte[]> again = call(new byte[8]);
    await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
    answerAll();
    assertThat(again.get(10, TimeUnit.SECONDS)).containsExactly(1);
  }

  @Test
  void aMessageOverTheSizeLimitIsRefusedUnread() {
    start(2, 10, 1024);
    assertThatThrownBy(() -> call(new byte[4096]).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getStatus().getDescription()).contains("1024").contains("4096");
        });
    assertThat(held).isEmpty();
  }

  /**
   * The service pool is fixed at --rpc_num_service_threads (docs/dense-nodes.md): calls
   * that block their thread queue for it instead of starting more threads.
   */
  @Test
  void blockingCallsQueueForTheFixedServiceThreads() throws Exception {
    start(2, 20, 1 << 20);
    List<Future<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      calls.add(ClientCalls.futureUnaryCall(channel.newCall(BLOCK,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), new byte[] {(byte) i}));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> server.callsInFlight() == 8);
    assertThat(Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("ts-test-rpc-"))).hasSize(2);
    release.countDown();
    for (Future<byte[]> f : calls) {
      assertThat(f.get(10, TimeUnit.SECONDS)).hasSize(1);
    }
  }

  /** Calls that hold both service threads (of a server started with 2) until released. */
  private List<Future<byte[]>> holdBothServiceThreads() {
    List<Future<byte[]>> blocked = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      blocked.add(ClientCalls.futureUnaryCall(channel.newCall(BLOCK,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), new byte[] {(byte) i}));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> server.callsInFlight() == 2);
    return blocked;
  }

  @Test
  void methodsOnThreadsOfTheirOwnAreServedWhileEveryServiceThreadIsHeld() throws Exception {
    ownMethods = List.of(ECHO);
    start(2, 20, 1 << 20);
    List<Future<byte[]>> blocked = holdBothServiceThreads();
    byte[] servedBy = ClientCalls.blockingUnaryCall(channel, ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), new byte[0]);
    assertThat(new String(servedBy, StandardCharsets.UTF_8)).startsWith("ts-test-own-");
    release.countDown();
    for (Future<byte[]> f : blocked) {
      assertThat(f.get(10, TimeUnit.SECONDS)).hasSize(1);
    }
  }

  /**
   * A method on the transport threads (docs/performance.md, "Locations over RPC") answers what
   * it can there while every service thread is held; what it hands to the service threads
   * waits for one and runs in the call's context.
   */
  @Test
  void methodsOnTransportThreadsAnswerWhileEveryServiceThreadIsHeld() throws Exception {
    start(2, 20, 1 << 20);
    List<Future<byte[]>> blocked = holdBothServiceThreads();
    byte[] servedBy = ClientCalls.blockingUnaryCall(channel, INLINE,
        CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), new byte[0]);
    assertThat(new String(servedBy, StandardCharsets.UTF_8)).doesNotStartWith("ts-test-");
    Future<byte[]> handedOff = ClientCalls.futureUnaryCall(channel.newCall(INLINE,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), new byte[] {1});
    await().atMost(Duration.ofSeconds(10)).until(() -> server.callsInFlight() == 3);
    assertThat(handedOff).isNotDone();
    release.countDown();
    assertThat(new String(handedOff.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .startsWith("ts-test-rpc-").endsWith(" in the call's context");
    for (Future<byte[]> f : blocked) {
      assertThat(f.get(10, TimeUnit.SECONDS)).hasSize(1);
    }
  }
}
