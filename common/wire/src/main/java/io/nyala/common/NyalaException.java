package io.nyala.common;

import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.HostPortPB;

/**
 * The one exception type of Nyala: a {@link StatusCode} and a message that names the thing and
 * the value. It maps 1:1 onto the wire's {@link ErrorPB}.
 */
public class NyalaException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final StatusCode code;
  /** With NOT_LEADER: the leader's uuid, if the server knew it (else empty). */
  private final String leaderUuid;
  /** With NOT_LEADER: the leader's RPC address, if known (else null). */
  private final HostPort leaderRpcAddress;

  public NyalaException(StatusCode code, String message) {
    this(code, message, null, "", null);
  }

  public NyalaException(StatusCode code, String message, Throwable cause) {
    this(code, message, cause, "", null);
  }

  public NyalaException(
      StatusCode code, String message, Throwable cause, String leaderUuid, HostPort leaderRpc) {
    super(code + ": " + message, cause);
    this.code = code;
    this.leaderUuid = leaderUuid == null ? "" : leaderUuid;
    this.leaderRpcAddress = leaderRpc;
  }

  public StatusCode code() {
    return code;
  }

  /** The message without the code prefix. */
  public String detail() {
    String m = getMessage();
    String prefix = code + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  public String leaderUuid() {
    return leaderUuid;
  }

  public HostPort leaderRpcAddress() {
    return leaderRpcAddress;
  }

  public boolean isRetriable() {
    return code.isRetriable();
  }

  public static NyalaException notFound(String fmt, Object... args) {
    return new NyalaException(StatusCode.NOT_FOUND, String.format(fmt, args));
  }

  public static NyalaException invalidArgument(String fmt, Object... args) {
    return new NyalaException(StatusCode.INVALID_ARGUMENT, String.format(fmt, args));
  }

  public static NyalaException alreadyPresent(String fmt, Object... args) {
    return new NyalaException(StatusCode.ALREADY_PRESENT, String.format(fmt, args));
  }

  public static NyalaException illegalState(String fmt, Object... args) {
    return new NyalaException(StatusCode.ILLEGAL_STATE, String.format(fmt, args));
  }

  public static NyalaException unavailable(String fmt, Object... args) {
    return new NyalaException(StatusCode.SERVICE_UNAVAILABLE, String.format(fmt, args));
  }

  public static NyalaException corruption(String fmt, Object... args) {
    return new NyalaException(StatusCode.CORRUPTION, String.format(fmt, args));
  }

  public static NyalaException ioError(String message, Throwable cause) {
    return new NyalaException(StatusCode.IO_ERROR, message, cause);
  }

  public static NyalaException timedOut(String fmt, Object... args) {
    return new NyalaException(StatusCode.TIMED_OUT, String.format(fmt, args));
  }

  public static NyalaException notLeader(String message, String leaderUuid, HostPort leaderRpc) {
    return new NyalaException(StatusCode.NOT_LEADER, message, null, leaderUuid, leaderRpc);
  }

  /** The wire form. */
  @InternalApi
  public ErrorPB toPb() {
    ErrorPB.Builder b = ErrorPB.newBuilder().setCode(code.toPb()).setMessage(detail());
    if (!leaderUuid.isEmpty()) {
      b.setLeaderUuid(leaderUuid);
    }
    if (leaderRpcAddress != null) {
      b.setLeaderRpcAddress(leaderRpcAddress.toPb());
    }
    return b.build();
  }

  /** The exception for a wire error; callers check {@link #isError(ErrorPB)} first. */
  @InternalApi
  public static NyalaException fromPb(ErrorPB pb) {
    HostPort leader = pb.hasLeaderRpcAddress() ? HostPort.fromPb(pb.getLeaderRpcAddress()) : null;
    return new NyalaException(
        StatusCode.fromPb(pb.getCode()), pb.getMessage(), null, pb.getLeaderUuid(), leader);
  }

  /** True if a response's error field reports a failure. */
  @InternalApi
  public static boolean isError(ErrorPB pb) {
    return pb != null && pb.getCode() != io.nyala.common.proto.StatusCodePB.OK;
  }

  /** Any throwable as a NyalaException: unwraps completion wrappers, maps the rest to codes. */
  public static NyalaException from(Throwable t) {
    Throwable c = t;
    while ((c instanceof java.util.concurrent.CompletionException
            || c instanceof java.util.concurrent.ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof NyalaException ne) {
      return ne;
    }
    if (c instanceof java.util.concurrent.TimeoutException) {
      return new NyalaException(StatusCode.TIMED_OUT, String.valueOf(c.getMessage()), c);
    }
    if (c instanceof java.io.IOException) {
      return new NyalaException(StatusCode.IO_ERROR, String.valueOf(c.getMessage()), c);
    }
    if (c instanceof IllegalArgumentException) {
      return new NyalaException(StatusCode.INVALID_ARGUMENT, String.valueOf(c.getMessage()), c);
    }
    return new NyalaException(StatusCode.RUNTIME_ERROR, c.toString(), c);
  }

  /** Helper for a proto builder's unused HostPortPB. */
  static HostPortPB emptyHostPort() {
    return HostPortPB.getDefaultInstance();
  }
}
