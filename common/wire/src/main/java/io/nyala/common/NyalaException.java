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

  /**
   * An error with no cause.
   *
   * @param code what kind of failure
   * @param message what failed, naming the thing and the value
   */
  public NyalaException(StatusCode code, String message) {
    this(code, message, null, "", null);
  }

  /**
   * An error caused by another throwable.
   *
   * @param code what kind of failure
   * @param message what failed, naming the thing and the value
   * @param cause the underlying failure, or null
   */
  public NyalaException(StatusCode code, String message, Throwable cause) {
    this(code, message, cause, "", null);
  }

  /**
   * An error that may carry a NOT_LEADER hint.
   *
   * @param code what kind of failure
   * @param message what failed, naming the thing and the value
   * @param cause the underlying failure, or null
   * @param leaderUuid with NOT_LEADER, the leader's uuid if known; null or empty otherwise
   * @param leaderRpc with NOT_LEADER, the leader's RPC address if known; else null
   */
  public NyalaException(
      StatusCode code, String message, Throwable cause, String leaderUuid, HostPort leaderRpc) {
    super(code + ": " + message, cause);
    this.code = code;
    this.leaderUuid = leaderUuid == null ? "" : leaderUuid;
    this.leaderRpcAddress = leaderRpc;
  }

  /**
   * The kind of failure; decides whether and where a call may be retried.
   *
   * @return the status code
   */
  public StatusCode code() {
    return code;
  }

  /**
   * The message without the code prefix.
   *
   * @return the message as the thrower gave it
   */
  public String detail() {
    String m = getMessage();
    String prefix = code + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  /**
   * With NOT_LEADER: the uuid of the server the failing one believes leads.
   *
   * @return the leader's uuid, or empty if unknown or not a NOT_LEADER error
   */
  public String leaderUuid() {
    return leaderUuid;
  }

  /**
   * With NOT_LEADER: the RPC address of the server the failing one believes leads.
   *
   * @return the leader's address, or null if unknown or not a NOT_LEADER error
   */
  public HostPort leaderRpcAddress() {
    return leaderRpcAddress;
  }

  /**
   * Whether the same call may succeed later, possibly on another server.
   *
   * @return true if a retry may help
   * @see StatusCode#isRetriable()
   */
  public boolean isRetriable() {
    return code.isRetriable();
  }

  /**
   * A NOT_FOUND error.
   *
   * @param fmt a {@link String#format} pattern naming what is missing
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException notFound(String fmt, Object... args) {
    return new NyalaException(StatusCode.NOT_FOUND, String.format(fmt, args));
  }

  /**
   * An INVALID_ARGUMENT error: the caller's input is wrong.
   *
   * @param fmt a {@link String#format} pattern naming the argument and its value
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException invalidArgument(String fmt, Object... args) {
    return new NyalaException(StatusCode.INVALID_ARGUMENT, String.format(fmt, args));
  }

  /**
   * An ALREADY_PRESENT error.
   *
   * @param fmt a {@link String#format} pattern naming what exists already
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException alreadyPresent(String fmt, Object... args) {
    return new NyalaException(StatusCode.ALREADY_PRESENT, String.format(fmt, args));
  }

  /**
   * A NOT_AUTHORIZED error: the caller's identity may not make the call.
   *
   * @param fmt a {@link String#format} pattern naming the call and the caller
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException notAuthorized(String fmt, Object... args) {
    return new NyalaException(StatusCode.NOT_AUTHORIZED, String.format(fmt, args));
  }

  /**
   * An ILLEGAL_STATE error: the call is not allowed in the object's current state.
   *
   * @param fmt a {@link String#format} pattern naming the object and its state
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException illegalState(String fmt, Object... args) {
    return new NyalaException(StatusCode.ILLEGAL_STATE, String.format(fmt, args));
  }

  /**
   * A SERVICE_UNAVAILABLE error: the server cannot take the call now; a retry may succeed.
   *
   * @param fmt a {@link String#format} pattern naming the server or service
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException unavailable(String fmt, Object... args) {
    return new NyalaException(StatusCode.SERVICE_UNAVAILABLE, String.format(fmt, args));
  }

  /**
   * A CORRUPTION error: stored or received bytes do not hold what they declare.
   *
   * @param fmt a {@link String#format} pattern naming the data and where it is damaged
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException corruption(String fmt, Object... args) {
    return new NyalaException(StatusCode.CORRUPTION, String.format(fmt, args));
  }

  /**
   * An IO_ERROR error.
   *
   * @param message what failed, naming the file or device
   * @param cause the I/O failure
   * @return the exception, not thrown
   */
  public static NyalaException ioError(String message, Throwable cause) {
    return new NyalaException(StatusCode.IO_ERROR, message, cause);
  }

  /**
   * A TIMED_OUT error: the call's deadline passed.
   *
   * @param fmt a {@link String#format} pattern naming the call and its deadline
   * @param args the pattern's arguments
   * @return the exception, not thrown
   */
  public static NyalaException timedOut(String fmt, Object... args) {
    return new NyalaException(StatusCode.TIMED_OUT, String.format(fmt, args));
  }

  /**
   * A NOT_LEADER error: the server called is not the leader of what the call needs.
   *
   * @param message what was called, naming the server and the tablet or master
   * @param leaderUuid the leader's uuid if known, else empty
   * @param leaderRpc the leader's RPC address if known, else null
   * @return the exception, not thrown
   */
  public static NyalaException notLeader(String message, String leaderUuid, HostPort leaderRpc) {
    return new NyalaException(StatusCode.NOT_LEADER, message, null, leaderUuid, leaderRpc);
  }

  /**
   * The wire form.
   *
   * @return the error as an {@code ErrorPB}
   */
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

  /**
   * The exception for a wire error; callers check {@link #isError(ErrorPB)} first.
   *
   * @param pb a response's error
   * @return the exception, not thrown
   */
  @InternalApi
  public static NyalaException fromPb(ErrorPB pb) {
    HostPort leader = pb.hasLeaderRpcAddress() ? HostPort.fromPb(pb.getLeaderRpcAddress()) : null;
    return new NyalaException(
        StatusCode.fromPb(pb.getCode()), pb.getMessage(), null, pb.getLeaderUuid(), leader);
  }

  /**
   * Whether a response's error field reports a failure.
   *
   * @param pb a response's error field, or null
   * @return true if it holds a code other than OK
   */
  @InternalApi
  public static boolean isError(ErrorPB pb) {
    return pb != null && pb.getCode() != io.nyala.common.proto.StatusCodePB.OK;
  }

  /**
   * Any throwable as a NyalaException: unwraps completion wrappers, maps the rest to codes.
   *
   * @param t what a call failed with
   * @return {@code t} itself or its cause if it is a NyalaException, else a new one wrapping it
   */
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
