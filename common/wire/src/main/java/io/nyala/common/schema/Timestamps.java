package io.nyala.common.schema;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** TIMESTAMP values between {@link Instant} and microseconds since the Unix epoch. */
@InternalApi
public final class Timestamps {
  private Timestamps() {}

  /**
   * An instant as microseconds since the epoch; one with a fraction of a microsecond, or out of
   * an int64's range, is rejected rather than rounded.
   *
   * @param column the column the value is for, named in the error
   * @param t the instant
   * @return its microseconds since 1970-01-01T00:00:00Z
   * @throws NyalaException INVALID_ARGUMENT naming the column and the value
   */
  public static long toMicros(String column, Instant t) {
    if (t.getNano() % 1000 != 0) {
      throw NyalaException.invalidArgument(
          "timestamp %s for column '%s' has a fraction of a microsecond", t, column);
    }
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L),
          t.getNano() / 1000);
    } catch (ArithmeticException e) {
      throw NyalaException.invalidArgument(
          "timestamp %s for column '%s' is out of range for microseconds since the epoch", t,
          column);
    }
  }

  /**
   * Microseconds since the epoch as an instant.
   *
   * @param micros microseconds since 1970-01-01T00:00:00Z
   * @return the instant
   */
  public static Instant fromMicros(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }
}
