package io.nyala.client.rpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;

/**
 * A call that got no answer from the server's service: unreachable, cut off by its deadline,
 * cancelled, or failed inside gRPC. Distinct from an error the server sent in a response's
 * {@code ErrorPB}, because the retry policies differ: an unreachable server is skipped for another
 * replica or master, while a server's own SERVICE_UNAVAILABLE is retried on the same server.
 */
public final class TransportException extends NyalaException {
  private static final long serialVersionUID = 1L;

  /** The address that was called; transient because HostPort is not serializable. */
  private final transient HostPort server;
  /** gRPC's code for the failure. */
  private final Status.Code grpcCode;

  private TransportException(
      StatusCode code, String message, Throwable cause, HostPort server, Status.Code grpcCode) {
    super(code, message, cause);
    this.server = server;
    this.grpcCode = grpcCode;
  }

  /**
   * Maps a failed gRPC call onto a Nyala code.
   *
   * @param server the address that was called
   * @param t what the call failed with
   * @return the exception, naming the server
   */
  public static TransportException of(HostPort server, Throwable t) {
    Status s = Status.fromThrowable(t);
    String desc = s.getDescription() == null ? s.getCode().name() : s.getDescription();
    StatusCode code = switch (s.getCode()) {
      case UNAVAILABLE -> StatusCode.SERVICE_UNAVAILABLE;
      case DEADLINE_EXCEEDED -> StatusCode.TIMED_OUT;
      case CANCELLED -> StatusCode.ABORTED;
      case UNIMPLEMENTED -> StatusCode.NOT_SUPPORTED;
      // gRPC's answer to a message over the server's --rpc_max_message_size: the request is
      // too big, and sending it again cannot help.
      case INVALID_ARGUMENT, RESOURCE_EXHAUSTED -> StatusCode.INVALID_ARGUMENT;
      // The server's authorization refused the caller (docs/architecture.md, "Who may call
      // what"): the same caller is refused again, here or on another server.
      case PERMISSION_DENIED, UNAUTHENTICATED -> StatusCode.NOT_AUTHORIZED;
      default -> StatusCode.RUNTIME_ERROR;
    };
    String what = switch (s.getCode()) {
      case UNAVAILABLE -> "server " + server + " is unreachable: " + desc;
      case RESOURCE_EXHAUSTED -> "request to " + server + " is larger than the server accepts "
          + "(--rpc_max_message_size): " + desc;
      case DEADLINE_EXCEEDED -> "call to " + server + " hit its deadline: " + desc;
      case PERMISSION_DENIED, UNAUTHENTICATED -> "server " + server + " refused the call: " + desc;
      default -> "call to " + server + " failed with gRPC " + s.getCode() + ": " + desc;
    };
    return new TransportException(code, what, t, server, s.getCode());
  }

  /** @return the address that was called */
  public HostPort server() {
    return server;
  }

  /**
   * gRPC's code for the failure, for the transport's own use: applications read {@link #code()},
   * {@link #isRetriable()} and {@link #isUnreachable()} instead.
   *
   * @return gRPC's status code for the failure
   */
  Status.Code grpcCode() {
    return grpcCode;
  }

  /**
   * Whether the server could not be reached at all (no connection, or it went away), as opposed
   * to a call that reached it and then failed or ran out of time. The retry loops skip an
   * unreachable server for another replica or master.
   *
   * @return true if the server was unreachable
   */
  public boolean isUnreachable() {
    return grpcCode == Status.Code.UNAVAILABLE;
  }

  /**
   * Whether another attempt (on this or another server) may succeed: the server was unreachable,
   * the call ran out of time, or the client's token had expired (the retry carries a renewed
   * one). Anything else (e.g. the handler threw) would fail again.
   *
   * @return true for UNAVAILABLE, DEADLINE_EXCEEDED and an expired token
   */
  @Override
  public boolean isRetriable() {
    return grpcCode == Status.Code.UNAVAILABLE || grpcCode == Status.Code.DEADLINE_EXCEEDED
        || isExpiredToken();
  }

  /**
   * Whether the server refused the call's token as expired (docs/architecture.md, "Who may
   * call what").
   *
   * @return true for UNAUTHENTICATED saying the token expired
   */
  public boolean isExpiredToken() {
    return grpcCode == Status.Code.UNAUTHENTICATED && getMessage().contains("expired at");
  }

  /**
   * Whether the server refused the call's token (expired, or signed by a key it does not know:
   * a master that has not led since the key was made knows none of it).
   *
   * @return true for UNAUTHENTICATED
   */
  public boolean isUnauthenticated() {
    return grpcCode == Status.Code.UNAUTHENTICATED;
  }

  /**
   * Whether {@code t} is a gRPC failure at all (as opposed to, e.g., an error of our own code).
   *
   * @param t a throwable
   * @return true if it carries a gRPC status
   */
  static boolean isGrpc(Throwable t) {
    return t instanceof StatusRuntimeException || t instanceof io.grpc.StatusException;
  }
}
