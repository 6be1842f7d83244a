package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Polls a condition on remote servers until it holds or a deadline passes. There is no event to
 * wait on (the servers may be other processes), so it asks again every {@value #POLL_MS} ms.
 */
final class RemoteWait {
  private static final long POLL_MS = 100;

  private RemoteWait() {}

  /**
   * Calls {@code attempt} with a fresh {@link TabletView} until it returns non-null, and returns
   * that; after {@code timeout}, throws TIMED_OUT saying {@code what} and what the last attempt
   * found lacking ({@code lacking}, read after each failed attempt).
   */
  static <T> T until(MiniCluster cluster, String what, Duration timeout,
      Function<TabletView, T> attempt, Supplier<String> lacking) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try (TabletView view = new TabletView(cluster)) {
        T t = attempt.apply(view);
        if (t != null) {
          return t;
        }
      }
      if (System.nanoTime() - deadline >= 0) {
        throw NyalaException.timedOut("%s: not done within %d ms: %s", what, timeout.toMillis(),
            lacking.get());
      }
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw NyalaException.illegalState("interrupted waiting: %s", what);
      }
    }
  }
}
