package io.nyala.itests.nemesis;

import java.util.ArrayList;
import java.util.List;

/** Checks the bank workload: every snapshot total that was read equals the initial total. */
final class BankChecker {
  private BankChecker() {}

  /**
   * The verdict.
   *
   * @param reads snapshot totals read
   * @param transfers transfers acknowledged ok
   * @param wrong the history lines of totals that differ (at most 20)
   * @param wrongCount how many differ
   */
  record Verdict(int reads, int transfers, List<String> wrong, int wrongCount) {
    boolean valid() {
      return wrongCount == 0 && reads > 0;
    }

    String summary() {
      return String.format("bank: %s %d snapshot totals read, %d transfers ok, %d wrong%s",
          valid() ? "VALID" : "INVALID", reads, transfers, wrongCount,
          wrong.isEmpty() ? "" : ": " + String.join("; ", wrong));
    }
  }

  static Verdict check(List<HistoryOp> events, long total) {
    int reads = 0;
    int transfers = 0;
    int wrongCount = 0;
    List<String> wrong = new ArrayList<>();
    for (HistoryOp e : events) {
      if (e.outcome() != Outcome.OK) {
        continue;
      }
      if (e.type() == OpType.TRANSFER) {
        transfers++;
      } else if (e.type() == OpType.SCAN_TOTAL) {
        reads++;
        if (e.value() == null || e.value() != total) {
          wrongCount++;
          if (wrong.size() < 20) {
            wrong.add(e.toLine() + " expected " + total);
          }
        }
      }
    }
    return new Verdict(reads, transfers, wrong, wrongCount);
  }
}
