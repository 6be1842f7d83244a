package io.nyala.common.rpc;

import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A server's gRPC listener for Nyala's own services (Ratis runs its own). Calls run on a pool of
 * threads named after the server and are counted per method in the metrics.
 */
public final class RpcServer implements AutoCloseable {
  private final String serverName;
  private final HostPort bind;
  private final MetricRegistry metrics;
  private final NettyServerBuilder builder;
  private final ExecutorService executor;
  private Server server;

  public RpcServer(String serverName, HostPort bind, int threads, MetricRegistry metrics) {
    this.serverName = serverName;
    this.bind = bind;
    this.metrics = metrics;
    this.executor = Executors.newFixedThreadPool(threads, LogContext.threadFactory(serverName, "rpc"));
    this.builder = NettyServerBuilder.forAddress(new InetSocketAddress(bind.host(), bind.port()))
        .executor(executor)
        .maxInboundMessageSize(64 << 20);
  }

  public RpcServer addService(BindableService service) {
    io.grpc.ServerServiceDefinition def = service.bindService();
    // Every method shows on /metrics from the start, at 0, rather than after its first call.
    for (io.grpc.ServerMethodDefinition<?, ?> m : def.getMethods()) {
      requests(m.getMethodDescriptor().getBareMethodName());
    }
    builder.addService(ServerInterceptors.intercept(def, new CountingInterceptor()));
    return this;
  }

  private MetricRegistry.Counter requests(String method) {
    return metrics.counter("rpc_requests_total", "RPC calls received, by method",
        Map.of("method", String.valueOf(method)));
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
  }

  /** Counts calls and failures per method; tags the call's thread with the server name. */
  private final class CountingInterceptor implements ServerInterceptor {
    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
      String method = call.getMethodDescriptor().getBareMethodName();
      requests(method).inc();
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onHalfClose() {
          LogContext.set(serverName);
          super.onHalfClose();
        }
      };
    }
  }
}
