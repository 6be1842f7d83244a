package io.nyala.common.metrics.ratis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs a body on several threads released together, and waits for all of them. */
final class SimultaneousThreads {
  /** What each thread runs, given its number from 0. */
  interface Body {
    void run(int thread) throws Exception;
  }

  private SimultaneousThreads() {}

  /** Runs {@code body} on {@code threads} threads at once; rethrows the first failure. */
  static void run(int threads, Body body) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          start.await();
          body.run(thread);
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
