package io.nyala.tserver.copy;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.nyala.common.proto.tserver.FetchDataResponsePB;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Faults at the seam between tablet copy's client and service, on the server side of real gRPC:
 * a plan maps each FetchData call (numbered from 1) to a fault. Counts the calls.
 */
final class FetchFaults implements ServerInterceptor {
  enum Fault {
    NONE,
    /** The call fails as if the connection broke. */
    UNAVAILABLE,
    /** The server answers that the deadline passed. */
    DEADLINE_EXCEEDED,
    /** The call is never answered: the client's own deadline ends it. */
    STALL,
    /** The answer arrives with a CRC that does not match its data. */
    BAD_CRC,
    /** The session expires just before the call is served. */
    EXPIRE_SESSION
  }

  private final IntFunction<Fault> plan;
  private final Runnable expireSessions;
  final AtomicInteger begins = new AtomicInteger();
  final AtomicInteger fetches = new AtomicInteger();

  FetchFaults(IntFunction<Fault> plan, Runnable expireSessions) {
    this.plan = plan;
    this.expireSessions = expireSessions;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getBareMethodName();
    if ("BeginTabletCopySession".equals(method)) {
      begins.incrementAndGet();
    }
    if (!"FetchData".equals(method)) {
      return next.startCall(call, headers);
    }
    switch (plan.apply(fetches.incrementAndGet())) {
      case UNAVAILABLE -> {
        return fail(call, Status.UNAVAILABLE);
      }
      case DEADLINE_EXCEEDED -> {
        return fail(call, Status.DEADLINE_EXCEEDED);
      }
      case STALL -> {
        return new ServerCall.Listener<>() {}; // gRPC cancels the call at the client's deadline
      }
      case BAD_CRC -> {
        return next.startCall(new BadCrc<>(call), headers);
      }
      case EXPIRE_SESSION -> {
        expireSessions.run();
        return next.startCall(call, headers);
      }
      default -> {
        return next.startCall(call, headers);
      }
    }
  }

  private static <Q, R> ServerCall.Listener<Q> fail(ServerCall<Q, R> call, Status status) {
    call.close(status.withDescription("injected fault"), new Metadata());
    return new ServerCall.Listener<>() {};
  }

  private static final class BadCrc<Q, R>
      extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    BadCrc(ServerCall<Q, R> call) {
      super(call);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void sendMessage(R message) {
      FetchDataResponsePB r = (FetchDataResponsePB) message;
      super.sendMessage((R) r.toBuilder().setCrc32C(r.getCrc32C() ^ 1).build());
    }
  }
}
