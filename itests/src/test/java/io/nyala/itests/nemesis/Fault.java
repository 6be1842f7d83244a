package io.nyala.itests.nemesis;

import java.util.Random;

/**
 * One kind of fault the {@link Nemesis} can inject. One fault of an instance is active at a time:
 * {@link #apply} starts it, {@link #heal} ends it. Kinds are small classes of their own so that
 * the schedule can take any set of them (a network partition joins as one more class).
 */
interface Fault {
  /** A short name for the summary, e.g. {@code kill-tserver}. */
  String name();

  /**
   * Starts the fault on a target chosen with {@code random}.
   *
   * @return what it did, for the history (e.g. {@code SIGKILL ts-1})
   */
  String apply(Random random);

  /** Ends the fault (restarts, resumes); does nothing when none is active. Idempotent. */
  void heal();
}
