package io.nyala.common.fault;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * The partition filter of Nyala's own RPC (docs/testing.md, "Network partitions"): a server's
 * outgoing calls carry its uuid in the {@value #CALLER_HEADER} header ({@link #callerIdentity}),
 * and its listener answers a call from a server it is cut off from with UNAVAILABLE before any
 * handler sees it ({@link #inbound}). Calls without the header (clients, tools) always pass.
 */
public final class RpcPartitionFilter {
  /** The header naming the calling server's uuid. */
  public static final String CALLER_HEADER = "nyala-caller-uuid";
  static final Metadata.Key<String> CALLER =
      Metadata.Key.of(CALLER_HEADER, Metadata.ASCII_STRING_MARSHALLER);

  private RpcPartitionFilter() {}

  /** Tags every call through a channel with {@code selfUuid}. */
  public static ClientInterceptor callerIdentity(String selfUuid) {
    return new ClientInterceptor() {
      @Override
      public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method,
          CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(
            next.newCall(method, options)) {
          @Override
          public void start(Listener<A> listener, Metadata headers) {
            headers.put(CALLER, selfUuid);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  /** Drops the calls of servers {@code faults} cuts off. */
  public static ServerInterceptor inbound(NetworkFaults faults) {
    return new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        String caller = headers.get(CALLER);
        if (faults.cutsOff(caller)) {
          call.close(Status.UNAVAILABLE.withDescription(faults.drop(caller)), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
      }
    };
  }
}
