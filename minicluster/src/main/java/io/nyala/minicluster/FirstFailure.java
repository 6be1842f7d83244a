package io.nyala.minicluster;

/**
 * Runs the steps of a shutdown that must all run even when one fails, and keeps the first
 * failure with the later ones suppressed in it.
 */
final class FirstFailure {
  private RuntimeException first;

  /** Runs {@code step}, keeping its failure. */
  void run(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      if (first == null) {
        first = e;
      } else {
        first.addSuppressed(e);
      }
    }
  }

  /** Whether a step has failed so far. */
  boolean failed() {
    return first != null;
  }

  /** Throws the first failure, if any step failed. */
  void rethrow() {
    if (first != null) {
      throw first;
    }
  }
}
