package io.nyala.common;

import io.nyala.common.proto.StatusCodePB;

/** Outcome codes shared by every error; each maps 1:1 onto the wire's {@link StatusCodePB}. */
public enum StatusCode {
  OK(StatusCodePB.OK, false),
  NOT_FOUND(StatusCodePB.NOT_FOUND, false),
  ALREADY_PRESENT(StatusCodePB.ALREADY_PRESENT, false),
  INVALID_ARGUMENT(StatusCodePB.INVALID_ARGUMENT, false),
  NOT_LEADER(StatusCodePB.NOT_LEADER, true),
  CORRUPTION(StatusCodePB.CORRUPTION, false),
  IO_ERROR(StatusCodePB.IO_ERROR, false),
  TIMED_OUT(StatusCodePB.TIMED_OUT, true),
  SERVICE_UNAVAILABLE(StatusCodePB.SERVICE_UNAVAILABLE, true),
  ILLEGAL_STATE(StatusCodePB.ILLEGAL_STATE, false),
  NOT_SUPPORTED(StatusCodePB.NOT_SUPPORTED, false),
  ABORTED(StatusCodePB.ABORTED, false),
  RUNTIME_ERROR(StatusCodePB.RUNTIME_ERROR, false);

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

  /** Whether a client may retry the same call later, possibly on another server. */
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
