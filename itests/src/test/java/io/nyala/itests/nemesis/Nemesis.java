package io.nyala.itests.nemesis;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A seeded fault schedule on a thread of its own: after a quiet gap it picks one of its
 * {@link Fault}s, applies it, keeps it for a while, heals it, and so on until {@link #stop}. One
 * fault is active at a time, so a majority of every tablet's replicas stays up. Each apply and
 * heal is recorded in the {@link History} (process -1). The same seed gives the same choices;
 * what they hit (which server leads) depends on the run.
 */
final class Nemesis implements AutoCloseable {
  private final List<Fault> faults;
  private final History history;
  private final Random random;
  private final Millis gap;
  private final Millis hold;
  private final CountDownLatch stopped = new CountDownLatch(1);
  /** Applications per fault name (ok or not); guarded by itself. */
  private final Map<String, Integer> applied = new TreeMap<>();
  private final Thread thread;

  /** A range of milliseconds, from {@code min} to {@code max} inclusive. */
  record Millis(long min, long max) {
    Millis {
      if (min < 0 || max < min) {
        throw new IllegalArgumentException("not a range of milliseconds: " + min + ".." + max);
      }
    }
  }

  /**
   * A schedule, not started.
   *
   * @param gap the range of quiet time before each fault
   * @param hold the range of time each fault lasts
   */
  Nemesis(List<Fault> faults, History history, long seed, Millis gap, Millis hold) {
    if (faults.isEmpty()) {
      throw new IllegalArgumentException("a nemesis needs at least one fault");
    }
    this.faults = List.copyOf(faults);
    this.history = history;
    this.random = new Random(seed);
    this.gap = gap;
    this.hold = hold;
    this.thread = new Thread(this::run, "nemesis");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    long healedFor = 0;
    while (!pause(gap.min() - healedFor, gap.max() - healedFor)) {
      Fault f = faults.get(random.nextInt(faults.size()));
      synchronized (applied) {
        applied.merge(f.name(), 1, Integer::sum);
      }
      HistoryOp op = history.invoke(-1, OpType.FAULT, 0, null, f.name());
      try {
        history.complete(op, Outcome.OK, null, f.name() + " applied: " + f.apply(random));
      } catch (RuntimeException e) {
        history.complete(op, Outcome.FAIL, null, f.name() + " could not apply: " + e);
      }
      pause(hold.min(), hold.max());
      // A restart takes seconds of the quiet gap: the schedule keeps its pace.
      long start = System.nanoTime();
      heal(f);
      healedFor = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
  }

  private void heal(Fault f) {
    HistoryOp op = history.invoke(-1, OpType.FAULT, 0, null, "heal " + f.name());
    try {
      f.heal();
      history.complete(op, Outcome.OK, null, "healed " + f.name());
    } catch (RuntimeException e) {
      history.complete(op, Outcome.FAIL, null, "could not heal " + f.name() + ": " + e);
    }
  }

  /** Waits a random time in [min, max] ms (none if below 0); true if stopped meanwhile. */
  private boolean pause(long minMs, long maxMs) {
    long ms = Math.max(0, minMs + (long) (random.nextDouble() * (maxMs - minMs)));
    try {
      return stopped.await(ms, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  /**
   * Stops the schedule and waits for its thread, which heals the fault it holds. Should the
   * thread have died, every fault is healed here (healing an inactive one does nothing).
   */
  void stop() throws InterruptedException {
    stopped.countDown();
    thread.join(TimeUnit.MINUTES.toMillis(2));
    if (thread.isAlive()) {
      throw new IllegalStateException("the nemesis thread did not stop within 2 minutes");
    }
    faults.forEach(Fault::heal);
  }

  /** How often each fault was picked. */
  Map<String, Integer> applied() {
    synchronized (applied) {
      return new TreeMap<>(applied);
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (stopped.getCount() > 0) {
      stop();
    }
  }
}
