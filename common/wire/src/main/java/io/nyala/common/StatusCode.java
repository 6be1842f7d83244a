package io.nyala.common;

import io.nyala.common.proto.StatusCodePB;

/** Outcome codes shared by every error; each maps 1:1 onto the wire's {@link StatusCodePB}. */
public enum StatusCode {
  /** Success; never carried by an exception. */
  OK(StatusCodePB.OK, false),
  /** The table, tablet, column, row or server named does not exist. */
  NOT_FOUND(StatusCodePB.NOT_FOUND, false),
  /** What is being created or inserted exists already. */
  ALREADY_PRESENT(StatusCodePB.ALREADY_PRESENT, false),
  /** The caller's input is wrong; the same call fails again. */
  INVALID_ARGUMENT(StatusCodePB.INVALID_ARGUMENT, false),
  /** The server called is not the leader; retry on the leader (the error may name it). */
  NOT_LEADER(StatusCodePB.NOT_LEADER, true),
  /** Stored or received bytes do not hold what they declare. */
  CORRUPTION(StatusCodePB.CORRUPTION, false),
  /** A disk or file operation failed. */
  IO_ERROR(StatusCodePB.IO_ERROR, false),
  /** The call's deadline passed; a retry may succeed. */
  TIMED_OUT(StatusCodePB.TIMED_OUT, true),
  /** The server cannot take the call now (unreachable, starting, busy); retry. */
  SERVICE_UNAVAILABLE(StatusCodePB.SERVICE_UNAVAILABLE, true),
  /** The call is not allowed in the object's current state. */
  ILLEGAL_STATE(StatusCodePB.ILLEGAL_STATE, false),
  /** The server does not support the call or option. */
  NOT_SUPPORTED(StatusCodePB.NOT_SUPPORTED, false),
  /** The call was cancelled before it completed. */
  ABORTED(StatusCodePB.ABORTED, false),
  /** An unexpected failure: a bug or an unknown wire code. */
  RUNTIME_ERROR(StatusCodePB.RUNTIME_ERROR, false),
  /**
   * The caller's identity may not make this call (docs/architecture.md, "Who may call what");
   * the same call from the same caller is refused again.
   */
  NOT_AUTHORIZED(StatusCodePB.NOT_AUTHORIZED, false);

  private final StatusCodePB pb;
  private final boolean retriable;

  StatusCode(StatusCodePB pb, boolean retriable) {
    this.pb = pb;
    this.retriable = retriable;
  }

  /** The wire form. */
  StatusCodePB toPb() {
    return pb;
  }

  /**
   * Whether a client may retry the same call later, possibly on another server.
   *
   * @return true for NOT_LEADER, TIMED_OUT and SERVICE_UNAVAILABLE
   */
  public boolean isRetriable() {
    return retriable;
  }

  /** The code for a wire value; unknown values become {@link #RUNTIME_ERROR}. */
  static StatusCode fromPb(StatusCodePB pb) {
    for (StatusCode c : values()) {
      if (c.pb == pb) {
        return c;
      }
    }
    return RUNTIME_ERROR;
  }
}
