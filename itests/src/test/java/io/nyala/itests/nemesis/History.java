package io.nyala.itests.nemesis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe record of operations, in the order they happened: each {@link #invoke} before
 * the operation starts and one {@link #complete} after it ends, with monotonic times relative to
 * the run's start. Printable as text, one line per event, and written to a file when a checker
 * fails.
 */
final class History {
  private final long startNanos;
  private final AtomicLong nextId = new AtomicLong();
  /** Guards {@link #events}; appends happen under it so the list is in time order. */
  private final Object lock = new Object();
  private final List<HistoryOp> events = new ArrayList<>();
  /** Ids invoked and not completed yet; guarded by {@link #lock}. */
  private final Set<Long> open = new HashSet<>();

  History() {
    this(System.nanoTime());
  }

  History(long startNanos) {
    this.startNanos = startNanos;
  }

  /** Records that {@code process} starts an operation; pass the result to {@link #complete}. */
  HistoryOp invoke(int process, OpType type, long key, Long value, String note) {
    synchronized (lock) {
      HistoryOp op = new HistoryOp(nextId.getAndIncrement(), process, type, Outcome.INVOKE, key,
          value, System.nanoTime() - startNanos, note);
      events.add(op);
      open.add(op.id());
      return op;
    }
  }

  /** Records how {@code invoked} ended; {@code value} is what a read saw (else the invoke's). */
  HistoryOp complete(HistoryOp invoked, Outcome outcome, Long value, String note) {
    if (invoked.outcome() != Outcome.INVOKE || outcome == Outcome.INVOKE) {
      throw new IllegalArgumentException("complete " + invoked.toLine() + " with " + outcome);
    }
    synchronized (lock) {
      if (!open.remove(invoked.id())) {
        throw new IllegalArgumentException("operation already completed: " + invoked.toLine());
      }
      HistoryOp op = new HistoryOp(invoked.id(), invoked.process(), invoked.type(), outcome,
          invoked.key(), value, System.nanoTime() - startNanos, note);
      events.add(op);
      return op;
    }
  }

  /** A copy of the events so far, in time order. */
  List<HistoryOp> events() {
    synchronized (lock) {
      return List.copyOf(events);
    }
  }

  /** Every event, one line each. */
  String toText() {
    StringBuilder sb = new StringBuilder();
    for (HistoryOp op : events()) {
      sb.append(op.toLine()).append('\n');
    }
    return sb.toString();
  }

  /**
   * Writes the history, headed by the seed and the verdicts, to {@code dir/<name>-<seed>.txt}.
   *
   * @return the file written
   */
  Path writeTo(Path dir, String name, long seed, String header) {
    try {
      Files.createDirectories(dir);
      Path file = dir.resolve(name + "-" + seed + ".txt");
      Files.writeString(file, "seed " + seed + "\n" + header + "\n" + toText());
      return file.toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the history to " + dir, e);
    }
  }
}
