package io.nyala.common.rpc;

import io.grpc.BindableService;
import io.grpc.Context;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server's gRPC listener for Nyala's own services (Ratis runs its own). Calls run on a pool of
 * threads named after the server (but those of methods given {@link #ownThreads threads of
 * their own} or run {@link #onTransportThreads on the transport threads}) and are counted per
 * method in the metrics.
 *
 * <p>What a burst of requests may cost is bounded (docs/data-safety.md, "Input"): at most
 * {@code threads + queueLength} calls are in flight, counted from the moment the transport
 * creates the stream (so calls still queued for a thread count) until it closes; a call beyond
 * that is answered at once with gRPC UNAVAILABLE, which clients read as SERVICE_UNAVAILABLE and
 * retry after a backoff. No message larger than {@code maxMessageBytes} is read; gRPC answers one
 * with RESOURCE_EXHAUSTED, which clients read as INVALID_ARGUMENT (retrying cannot help).
 */
public final class RpcServer implements AutoCloseable {
  /** As Kudu's {@code --rpc_max_message_size} default, well above any Write or scan page. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 << 20;
  /**
   * Above Kudu's 50 because our Write and Scan handlers are asynchronous: a call waiting for
   * Raft holds no thread, so pipelining clients keep many in flight without overloading us.
   */
  public static final int DEFAULT_QUEUE_LENGTH = 1000;
  /** Set, in a call's context, to the calls in flight when it arrived over the limit. */
  private static final Context.Key<Integer> OVERLOADED = Context.key("nyala-rpc-overloaded");

  private final String serverName;
  private final HostPort bind;
  private final MetricRegistry metrics;
  private final NettyServerBuilder builder;
  private final ExecutorService executor;
  /** Full method name to the executor its calls run on, for methods not on {@link #executor}. */
  private final Map<String, Executor> methodExecutors = new ConcurrentHashMap<>();
  /** The pools of {@link #ownThreads(String, int, List)}, shut down with the server. */
  private final List<ExecutorService> ownPools = new ArrayList<>();
  private final int maxInFlight;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final MetricRegistry.Counter rejected;
  /**
   * {@code rpc_requests_total} by method, counted on every call: a registry lookup checks the
   * name against every series, which showed in the profile of the cheapest calls
   * (docs/performance.md, "Locations over RPC").
   */
  private final Map<String, MetricRegistry.Counter> requestCounters = new ConcurrentHashMap<>();
  /** Run on every call after it is counted and admitted, in order; see {@link #checkCallers}. */
  private final List<ServerInterceptor> callerChecks = new ArrayList<>();
  private Server server;

  public RpcServer(String serverName, HostPort bind, int threads, MetricRegistry metrics) {
    this(serverName, bind, threads, DEFAULT_QUEUE_LENGTH, DEFAULT_MAX_MESSAGE_BYTES, metrics);
  }

  /**
   * @param queueLength calls admitted beyond {@code threads} (running or waiting for a thread)
   * @param maxMessageBytes the largest request message read
   */
  public RpcServer(String serverName, HostPort bind, int threads, int queueLength,
      int maxMessageBytes, MetricRegistry metrics) {
    if (threads < 1 || queueLength < 0 || maxMessageBytes < 1) {
      throw NyalaException.invalidArgument("%s: --rpc_num_service_threads (%d) must be >= 1, "
          + "--rpc_service_queue_length (%d) >= 0 and --rpc_max_message_size (%d) >= 1",
          serverName, threads, queueLength, maxMessageBytes);
    }
    this.serverName = serverName;
    this.bind = bind;
    this.metrics = metrics;
    this.maxInFlight = threads + queueLength;
    this.rejected = metrics.counter("rpc_requests_rejected_total",
        "RPC calls answered SERVICE_UNAVAILABLE because the server had too many in flight");
    this.executor =
        Executors.newFixedThreadPool(threads, LogContext.threadFactory(serverName, "rpc"));
    this.builder = NettyServerBuilder.forAddress(new InetSocketAddress(bind.host(), bind.port()))
        // gRPC looks a call's method up on the server's executor before it asks the supplier
        // where to run it: the lookup runs on the transport thread (it is a map lookup), so
        // that a call with threads of its own is never stuck behind busy service threads.
        .directExecutor()
        .callExecutor(new ServerCallExecutorSupplier() {
          @Override
          public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call,
              Metadata headers) {
            return methodExecutors.getOrDefault(call.getMethodDescriptor().getFullMethodName(),
                executor);
          }
        })
        .addStreamTracerFactory(new Admission())
        .maxInboundMessageSize(maxMessageBytes);
  }

  /**
   * Serves {@code methods} on {@code threads} threads of their own rather than the service
   * threads: for calls that other servers need answered before the calls holding the service
   * threads can finish (a peer's request to wake a replica, while requests here wait for that
   * replica's group to elect), so that they are served however busy the service threads are.
   * Call before {@link #start}.
   */
  public RpcServer ownThreads(String name, int threads, List<MethodDescriptor<?, ?>> methods) {
    ExecutorService own = Executors.newFixedThreadPool(threads,
        LogContext.threadFactory(serverName, name));
    ownPools.add(own);
    for (MethodDescriptor<?, ?> m : methods) {
      methodExecutors.put(m.getFullMethodName(), own);
    }
    return this;
  }

  /**
   * Runs {@code methods} on the transport thread that received their calls (a Netty event loop)
   * instead of handing each call to a service thread: for cheap calls that would spend more on
   * the hand-off than on the answer (docs/performance.md, "Locations over RPC"). Everything
   * that runs there must not block, the caller checks ({@link #checkCallers}) included: their
   * handlers answer what they can at once and pass the rest to {@link #serviceThreads()}. Call
   * before {@link #start}.
   */
  public RpcServer onTransportThreads(List<MethodDescriptor<?, ?>> methods) {
    for (MethodDescriptor<?, ?> m : methods) {
      methodExecutors.put(m.getFullMethodName(), Runnable::run);
    }
    return this;
  }

  /**
   * The service threads, for the blocking part of a call that runs on a transport thread
   * ({@link #onTransportThreads}): tasks run in the gRPC context of the call that passed them
   * (so they see its caller). Tasks passed after {@link #close} are refused with
   * {@link java.util.concurrent.RejectedExecutionException}.
   */
  public Executor serviceThreads() {
    return task -> executor.execute(Context.current().wrap(task));
  }

  /**
   * Runs every call through {@code i} before any service sees it (and before it is counted):
   * for filters that turn calls away, such as an injected network partition. Call before
   * {@link #start}.
   */
  public RpcServer intercept(ServerInterceptor i) {
    builder.intercept(i);
    return this;
  }

  /**
   * Runs every call through {@code checks}, in this order, once it is counted and admitted and
   * before its service sees it: for who-may-call-what (docs/architecture.md, "Who may call
   * what"), which needs the call's TLS session and turns away calls that then change nothing.
   * Call before {@link #addService}.
   */
  public RpcServer checkCallers(ServerInterceptor... checks) {
    callerChecks.addAll(List.of(checks));
    return this;
  }

  /**
   * Serves TLS only, with {@code context} (docs/architecture.md, "TLS on the wire"): a
   * plaintext client fails its handshake. Call before {@link #start}.
   */
  public RpcServer useTls(SslContext context) {
    builder.sslContext(context);
    return this;
  }

  /** Calls in flight now (admitted or being turned away). */
  public int callsInFlight() {
    return inFlight.get();
  }

  public RpcServer addService(BindableService service) {
    io.grpc.ServerServiceDefinition def = service.bindService();
    // Every method shows on /metrics from the start, at 0, rather than after its first call.
    for (io.grpc.ServerMethodDefinition<?, ?> m : def.getMethods()) {
      requests(m.getMethodDescriptor().getBareMethodName());
    }
    // gRPC runs the last interceptor first: counting, then the caller checks in their order.
    List<ServerInterceptor> chain = new ArrayList<>(callerChecks);
    Collections.reverse(chain);
    chain.add(new CountingInterceptor());
    builder.addService(ServerInterceptors.intercept(def, chain));
    return this;
  }

  private MetricRegistry.Counter requests(String method) {
    String name = String.valueOf(method);
    MetricRegistry.Counter c = requestCounters.get(name);
    return c != null ? c : requestCounters.computeIfAbsent(name, m -> metrics.counter(
        "rpc_requests_total", "RPC calls received, by method", Map.of("method", m)));
  }

  public void start() {
    try {
      server = builder.build().start();
    } catch (IOException e) {
      throw NyalaException.ioError(
          serverName + ": cannot bind RPC address " + bind + ": " + e.getMessage(), e);
    }
  }

  /** The bound address (a real port even if 0 was asked for). */
  public HostPort boundAddress() {
    InetSocketAddress a = (InetSocketAddress) server.getListenSockets().get(0);
    return new HostPort(bind.host(), a.getPort());
  }

  @Override
  public void close() {
    if (server != null) {
      server.shutdown();
      try {
        if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
          server.shutdownNow();
          server.awaitTermination(2, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        server.shutdownNow();
      }
    }
    executor.shutdownNow();
    ownPools.forEach(ExecutorService::shutdownNow);
  }

  /**
   * Counts streams from creation to close on the transport thread, before any task of the call
   * is queued on the executor, and marks those over the limit for {@link CountingInterceptor}.
   */
  private final class Admission extends ServerStreamTracer.Factory {
    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
      int n = inFlight.incrementAndGet();
      return new ServerStreamTracer() {
        @Override
        public Context filterContext(Context context) {
          return n > maxInFlight ? context.withValue(OVERLOADED, n) : context;
        }

        @Override
        public void streamClosed(Status status) {
          inFlight.decrementAndGet();
        }
      };
    }
  }

  /**
   * Counts calls per method; turns away those {@link Admission} marked; tags the call's thread
   * with the server name.
   */
  private final class CountingInterceptor implements ServerInterceptor {
    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
      String method = call.getMethodDescriptor().getBareMethodName();
      requests(method).inc();
      Integer seen = OVERLOADED.get();
      if (seen != null) {
        rejected.inc();
        call.close(Status.UNAVAILABLE.withDescription(String.format("%s is overloaded: %d calls "
            + "in flight, limit %d (--rpc_num_service_threads + --rpc_service_queue_length); "
            + "retry later", serverName, seen, maxInFlight)), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onHalfClose() {
          // A transport thread serves every server of the JVM: it carries the name only while
          // it runs this call (service threads carry it always, so nothing changes for them).
          String before = LogContext.swap(serverName);
          try {
            super.onHalfClose();
          } finally {
            LogContext.swap(before);
          }
        }
      };
    }
  }
}
