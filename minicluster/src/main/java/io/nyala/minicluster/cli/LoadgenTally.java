package io.nyala.minicluster.cli;

import io.nyala.client.OperationResponse;
import io.nyala.client.RowError;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** What a loadgen run's writers have done so far: rows written and failed, and why. */
final class LoadgenTally {
  private static final int ERRORS_KEPT = 5;

  private final AtomicLong written = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  /** Rows refused because their key was already in the table (a rerun on the same keys). */
  private final AtomicLong alreadyPresent = new AtomicLong();
  private final List<String> firstErrors = Collections.synchronizedList(new ArrayList<>());

  /** Counts {@code rows} rows of {@code rowBytes} bytes each as written. */
  void written(long rows, long rowBytes) {
    written.addAndGet(rows);
    bytes.addAndGet(rows * rowBytes);
  }

  /** Counts the responses of one flush: rows with a row error failed, the others were written. */
  void responses(List<OperationResponse> responses, long rowBytes) {
    List<RowError> errors = new ArrayList<>();
    for (OperationResponse r : responses) {
      if (r.hasRowError()) {
        errors.add(r.getRowError());
      }
    }
    written(responses.size() - errors.size(), rowBytes);
    failed(errors);
  }

  /** Counts row errors of rows not yet counted as written. */
  void failed(List<RowError> errors) {
    failed.addAndGet(errors.size());
    for (RowError e : errors) {
      if (e.getErrorStatus().isAlreadyPresent()) {
        alreadyPresent.incrementAndGet();
      }
      synchronized (firstErrors) {
        if (firstErrors.size() < ERRORS_KEPT) {
          firstErrors.add(e.toString());
        }
      }
    }
  }

  /** Moves rows already counted as written (by a background flush) to failed. */
  void writtenThenFailed(List<RowError> errors, long rowBytes) {
    written(-errors.size(), rowBytes);
    failed(errors);
  }

  long written() {
    return written.get();
  }

  long failed() {
    return failed.get();
  }

  long bytes() {
    return bytes.get();
  }

  long alreadyPresent() {
    return alreadyPresent.get();
  }

  List<String> firstErrors() {
    synchronized (firstErrors) {
      return List.copyOf(firstErrors);
    }
  }
}
