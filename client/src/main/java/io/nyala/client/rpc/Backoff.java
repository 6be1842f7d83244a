package io.nyala.client.rpc;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter between retries: the n-th retry waits between half and all of
 * {@code min(max, initial * 2^n)} milliseconds. The jitter keeps many clients that failed at the
 * same moment (e.g. on a leader change) from retrying in lock step.
 *
 * @param initialMillis the base delay of the first retry
 * @param maxMillis the cap on any delay
 */
public record Backoff(long initialMillis, long maxMillis) {
  /** 10 ms doubling up to 1 s, the client's default. */
  public static final Backoff DEFAULT = new Backoff(10, 1000);

  /**
   * Validates the bounds.
   *
   * @param initialMillis the base delay of the first retry, at least 1
   * @param maxMillis the cap, at least {@code initialMillis}
   */
  public Backoff {
    if (initialMillis < 1 || maxMillis < initialMillis) {
      throw new IllegalArgumentException(
          "backoff needs 1 <= initial <= max, got " + initialMillis + ", " + maxMillis);
    }
  }

  /**
   * The delay before retry number {@code attempt}.
   *
   * @param attempt 0 for the first retry
   * @return the delay in milliseconds, at least 1
   */
  public long delayMillis(int attempt) {
    long base = maxMillis;
    if (attempt < 30) {
      base = Math.min(maxMillis, initialMillis << attempt);
    }
    long half = Math.max(1, base / 2);
    return half + ThreadLocalRandom.current().nextLong(base - half + 1);
  }
}
