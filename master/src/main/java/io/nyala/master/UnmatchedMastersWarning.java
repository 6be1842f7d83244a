package io.nyala.master;

import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns, once per term, when the catalog leader has led for {@link #AFTER_MS} and some master
 * has still matched none of its entries. Such a master cannot help elect if this leader is lost
 * (docs/decisions.md, "A member that has received nothing cannot help elect"), which is how a
 * late-starting master left the catalog leaderless (docs/testing.md, "Network partitions").
 * Called from the master's ticker thread only.
 */
final class UnmatchedMastersWarning {
  private static final Logger LOG = LoggerFactory.getLogger(UnmatchedMastersWarning.class);
  static final long AFTER_MS = 3_000;

  private final LongSupplier nanoClock;
  private long term = -1;
  private long sinceNanos;
  private boolean warned;

  UnmatchedMastersWarning(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /**
   * @param leaderTerm the term this master leads the catalog in, or -1
   * @param unmatched how many other masters have matched no entry yet
   */
  void check(long leaderTerm, IntSupplier unmatched) {
    long now = nanoClock.getAsLong();
    if (leaderTerm != term) {
      term = leaderTerm;
      sinceNanos = now;
      warned = false;
      return;
    }
    if (term < 0 || warned || now - sinceNanos < TimeUnit.MILLISECONDS.toNanos(AFTER_MS)) {
      return;
    }
    int n = unmatched.getAsInt();
    if (n > 0) {
      warned = true;
      LOG.warn("sys catalog leader in term {}: {} master(s) have matched none of its entries "
          + "{} ms into the term; while so, they cannot help elect a leader if this one is lost",
          term, n, TimeUnit.NANOSECONDS.toMillis(now - sinceNanos));
    }
  }
}
