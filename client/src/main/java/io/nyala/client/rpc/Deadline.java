package io.nyala.client.rpc;

import java.util.concurrent.TimeUnit;

/**
 * A point in time by which an operation must finish, with the timeout it was made from so that a
 * timeout error can say how long was allowed. Immutable; based on {@link System#nanoTime()}.
 */
public final class Deadline {
  private final long startNanos;
  private final long timeoutMillis;

  private Deadline(long startNanos, long timeoutMillis) {
    this.startNanos = startNanos;
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * A deadline {@code timeoutMillis} from now.
   *
   * @param timeoutMillis the time allowed, in milliseconds; must be positive
   * @return the deadline
   */
  public static Deadline after(long timeoutMillis) {
    if (timeoutMillis <= 0) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeoutMillis + " ms");
    }
    return new Deadline(System.nanoTime(), timeoutMillis);
  }

  /**
   * The deadline of one attempt of an operation: {@code attemptMillis} from now, but never later
   * than this deadline, so that an attempt whose answer never comes ends in time for a retry.
   *
   * @param attemptMillis the time allowed for one attempt; positive
   * @return the earlier of the two deadlines (its {@code timeoutMillis} is the attempt's share)
   */
  public Deadline forAttempt(long attemptMillis) {
    if (attemptMillis <= 0) {
      throw new IllegalArgumentException(
          "attempt timeout must be positive, got " + attemptMillis + " ms");
    }
    long now = System.nanoTime();
    long left = TimeUnit.NANOSECONDS.toMillis(Math.max(0, remainingNanos()));
    return new Deadline(now, Math.max(1, Math.min(attemptMillis, left)));
  }

  /** @return the timeout this deadline was made from, in milliseconds */
  public long timeoutMillis() {
    return timeoutMillis;
  }

  /** @return milliseconds since the deadline was made */
  public long elapsedMillis() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  /** @return milliseconds left, never negative */
  public long remainingMillis() {
    return Math.max(0, timeoutMillis - elapsedMillis());
  }

  /** @return whether no time is left */
  public boolean expired() {
    return remainingNanos() <= 0;
  }

  private long remainingNanos() {
    return TimeUnit.MILLISECONDS.toNanos(timeoutMillis) - (System.nanoTime() - startNanos);
  }

  /** @return the same deadline as gRPC's type, for a stub's {@code withDeadline} */
  public io.grpc.Deadline toGrpc() {
    // gRPC rejects nothing, but a zero deadline fails the call at once, which is what we want.
    return io.grpc.Deadline.after(Math.max(1, remainingNanos()), TimeUnit.NANOSECONDS);
  }

  @Override
  public String toString() {
    return "Deadline(" + remainingMillis() + " of " + timeoutMillis + " ms left)";
  }
}
