package io.nyala.client.rpc;

import io.grpc.ClientInterceptor;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc.TabletServerServiceStub;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Channels and timers of one client. One netty channel per server address (plaintext, or TLS
 * with {@link ClientTls}), made on first use and kept until {@link #close()}: channels
 * multiplex calls and reconnect by themselves, so sharing them is cheaper than any per-call
 * setup. One daemon timer thread runs retry delays and background flushes.
 *
 * <p>Thread-safe.
 */
public final class Transport implements AutoCloseable {
  /** Scan pages and location responses may exceed gRPC's 4 MiB default. */
  private static final int MAX_INBOUND_MESSAGE_BYTES = 64 << 20;

  private final ConcurrentHashMap<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final ScheduledThreadPoolExecutor timer;
  /** Retry delays not yet elapsed: failed on close so no caller waits forever. */
  private final Set<CompletableFuture<Void>> pendingDelays = ConcurrentHashMap.newKeySet();
  /** Null for plaintext channels. */
  private final ClientTls tls;
  private volatile boolean closed;
  /** Runs on every stub's calls (the client's token, if any); set once before first use. */
  private volatile ClientInterceptor[] interceptors = new ClientInterceptor[0];

  /** A plaintext transport with no channels yet. */
  public Transport() {
    this((Path) null);
  }

  /**
   * A transport with no channels yet.
   *
   * @param trustedCaFile the PEM certificate of the CA its TLS channels trust, or null for
   *     plaintext channels
   * @throws NyalaException NOT_FOUND or INVALID_ARGUMENT naming a CA file that is missing or
   *     holds no certificate
   */
  public Transport(Path trustedCaFile) {
    this.tls = trustedCaFile == null ? null : ClientTls.trusting(trustedCaFile);
    timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "nyala-client-timer");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
  }

  /**
   * Makes every later stub run {@code interceptor} on its calls: how the client's token is
   * attached (docs/architecture.md, "Who may call what"). Call before the first call.
   *
   * @param interceptor the interceptor
   */
  public void attach(ClientInterceptor interceptor) {
    this.interceptors = new ClientInterceptor[] {interceptor};
  }

  /**
   * The channel to a server, made on first use.
   *
   * @param server the server's RPC address
   * @return the cached channel
   * @throws NyalaException ILLEGAL_STATE once the transport is closed
   */
  public ManagedChannel channel(HostPort server) {
    if (closed) {
      throw NyalaException.illegalState("client is closed; cannot call %s", server);
    }
    ManagedChannel ch = channels.computeIfAbsent(server, hp -> {
      NettyChannelBuilder b = NettyChannelBuilder.forAddress(hp.host(), hp.port())
          .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES);
      return (tls == null ? b.usePlaintext() : b.sslContext(tls.context())).build();
    });
    if (ch.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      // A server that could not be reached leaves its channel in gRPC's reconnect backoff
      // (1 s, 1.6 s, 2.6 s, ... up to 2 min), which fails every call at once however long the
      // server has been back: a master down for a minute stayed unreachable to this client for
      // another. The client's own retry backoff paces the calls, so each asks for a reconnect.
      ch.resetConnectBackoff();
    }
    return ch;
  }

  /**
   * A master stub bound to a deadline.
   *
   * @param server the master's RPC address
   * @param deadline the call's deadline
   * @return the stub
   */
  public MasterServiceStub master(HostPort server, Deadline deadline) {
    return MasterServiceGrpc.newStub(channel(server)).withDeadline(deadline.toGrpc())
        .withInterceptors(interceptors);
  }

  /**
   * A tablet server stub bound to a deadline.
   *
   * @param server the tablet server's RPC address
   * @param deadline the call's deadline
   * @return the stub
   */
  public TabletServerServiceStub tserver(HostPort server, Deadline deadline) {
    return TabletServerServiceGrpc.newStub(channel(server)).withDeadline(deadline.toGrpc())
        .withInterceptors(interceptors);
  }

  /**
   * Runs a unary call and returns its response as a future. gRPC failures complete the future
   * with a {@link TransportException} naming {@code server}; a server's error inside the response
   * is the caller's to inspect.
   *
   * @param server the address being called, for error messages
   * @param invocation starts the call with the given observer
   * @param <T> the response type
   * @return the response
   */
  public <T> CompletableFuture<T> call(HostPort server, Consumer<StreamObserver<T>> invocation) {
    CompletableFuture<T> f = new CompletableFuture<>();
    StreamObserver<T> observer = new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        f.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        NyalaException handshake = ClientTls.handshakeFailure(tls, server, t);
        if (handshake != null) {
          f.completeExceptionally(handshake);
          return;
        }
        f.completeExceptionally(TransportException.isGrpc(t)
            ? TransportException.of(server, ClientTls.hintIfPlaintextRefused(tls, t))
            : NyalaException.from(t));
      }

      @Override
      public void onCompleted() {
        if (!f.isDone()) {
          f.completeExceptionally(NyalaException.illegalState(
              "call to %s completed without a response", server));
        }
      }
    };
    try {
      invocation.accept(observer);
    } catch (RuntimeException e) {
      f.completeExceptionally(NyalaException.from(e));
    }
    return f;
  }

  /**
   * A future that completes after a delay, on the timer thread.
   *
   * @param millis the delay; 0 or less completes at once
   * @return the future; fails with ILLEGAL_STATE if the transport closes first
   */
  public CompletableFuture<Void> delay(long millis) {
    if (millis <= 0) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> f = new CompletableFuture<>();
    pendingDelays.add(f);
    f.whenComplete((v, e) -> pendingDelays.remove(f));
    schedule(() -> f.complete(null), millis, f);
    if (closed) {
      // close() may have swept the set before f was added.
      f.completeExceptionally(NyalaException.illegalState("client is closed"));
    }
    return f;
  }

  /**
   * Runs a task after a delay on the timer thread; tasks must be short and never block.
   *
   * @param task the task
   * @param millis the delay
   */
  public void schedule(Runnable task, long millis) {
    schedule(task, millis, null);
  }

  private void schedule(Runnable task, long millis, CompletableFuture<?> onRejected) {
    try {
      timer.schedule(task, millis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      NyalaException closedError = NyalaException.illegalState("client is closed");
      if (onRejected != null) {
        onRejected.completeExceptionally(closedError);
      } else {
        throw closedError;
      }
    }
  }

  /** @return whether {@link #close()} was called */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Shuts every channel and the timer down; calls in flight fail. Waits up to a second for
   * channels to terminate so that their threads do not outlive the client.
   */
  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    for (CompletableFuture<Void> f : List.copyOf(pendingDelays)) {
      f.completeExceptionally(NyalaException.illegalState("client is closed"));
    }
    for (ManagedChannel ch : channels.values()) {
      ch.shutdownNow();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    for (ManagedChannel ch : channels.values()) {
      try {
        ch.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    channels.clear();
  }
}
