package io.nyala.common.security.authz;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.nyala.common.metrics.MetricRegistry;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces {@link RpcPolicy} before any handler runs, on the caller {@link CallerAuthentication}
 * put in the call's context (so it must run after that one). With
 * {@code --rpc_authentication=required} a refused call is closed with gRPC PERMISSION_DENIED,
 * which clients read as NOT_AUTHORIZED (not retried), described by the method and the caller,
 * and counted in {@code rpc_unauthorized_total{method=...}}; in the other modes every call
 * passes. The handler never sees a refused call, so a refusal changes nothing.
 */
public final class RpcAuthorization implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(RpcAuthorization.class);

  private final String serverName;
  private final RpcAuthentication mode;
  private final MetricRegistry metrics;

  /**
   * @param serverName names the server in log lines
   * @param mode {@code --rpc_authentication}
   * @param metrics where refusals are counted
   */
  public RpcAuthorization(String serverName, RpcAuthentication mode, MetricRegistry metrics) {
    this.serverName = serverName;
    this.mode = mode;
    this.metrics = metrics;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    if (mode != RpcAuthentication.REQUIRED) {
      return next.startCall(call, headers);
    }
    String method = call.getMethodDescriptor().getFullMethodName();
    String refusal = RpcPolicy.refusal(method, Caller.current());
    if (refusal == null) {
      return next.startCall(call, headers);
    }
    unauthorized(call.getMethodDescriptor().getBareMethodName()).inc();
    // DEBUG, not WARN: a caller could fill the log with refusals; the metric counts them.
    LOG.debug("{}: refused: {}", serverName, refusal);
    call.close(Status.PERMISSION_DENIED.withDescription(refusal), new Metadata());
    return new ServerCall.Listener<>() {};
  }

  /** The refusals of {@code method} (its bare name, as {@code rpc_requests_total} labels it). */
  public MetricRegistry.Counter unauthorized(String method) {
    return metrics.counter("rpc_unauthorized_total", "RPC calls refused because the caller's "
        + "identity may not make them (--rpc_authentication=required)",
        Map.of("method", String.valueOf(method)));
  }
}
