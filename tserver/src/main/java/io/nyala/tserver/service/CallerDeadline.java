package io.nyala.tserver.service;

import io.grpc.Context;
import io.grpc.Deadline;
import java.util.concurrent.TimeUnit;

/** The deadline of the RPC being served, as System.nanoTime, for work done on its behalf. */
final class CallerDeadline {
  /** Used when the caller set none: long enough to wake a hibernated tablet and elect. */
  private static final long DEFAULT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private CallerDeadline() {}

  static long nanos() {
    Deadline d = Context.current().getDeadline();
    long left = d == null ? DEFAULT_NANOS : d.timeRemaining(TimeUnit.NANOSECONDS);
    return System.nanoTime() + left;
  }
}
