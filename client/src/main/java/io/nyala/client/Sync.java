package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Waits for futures on behalf of the blocking API. */
final class Sync {
  private Sync() {}

  /**
   * Waits for a future.
   *
   * @param f the future
   * @param <T> its value type
   * @return its value
   * @throws NyalaException its failure (ABORTED if the thread is interrupted while waiting)
   */
  static <T> T join(CompletableFuture<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NyalaException(StatusCode.ABORTED, "interrupted while waiting for a call", e);
    } catch (ExecutionException e) {
      NyalaException ne = NyalaException.from(e.getCause());
      // The failure was made on another thread; wrapping it adds the caller's stack.
      throw new NyalaException(ne.code(), ne.detail(), ne, ne.leaderUuid(),
          ne.leaderRpcAddress());
    }
  }
}
