package io.nyala.itests.nemesis;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The one block a nemesis run prints: seed, duration, operations, faults and verdicts. */
final class Summary {
  private Summary() {}

  static String of(long seed, Duration run, List<HistoryOp> events, Map<String, Integer> faults,
      SetChecker.Verdict set, List<RegisterChecker.KeyVerdict> registers,
      BankChecker.Verdict bank, boolean valid) {
    StringBuilder sb = new StringBuilder("==== NemesisIT summary ====\n");
    sb.append(String.format("seed %d, %d s of workload, %d events%n", seed, run.toSeconds(),
        events.size()));
    Map<OpType, Map<Outcome, Integer>> counts = new EnumMap<>(OpType.class);
    for (HistoryOp e : events) {
      if (e.outcome() != Outcome.INVOKE) {
        counts.computeIfAbsent(e.type(), t -> new EnumMap<>(Outcome.class))
            .merge(e.outcome(), 1, Integer::sum);
      }
    }
    counts.forEach((type, byOutcome) -> sb.append(String.format("  %-10s %s%n", type,
        byOutcome)));
    sb.append("faults applied: ").append(faults).append('\n');
    events.stream().filter(e -> e.type() == OpType.FAULT && e.outcome() != Outcome.INVOKE)
        .forEach(e -> sb.append("  ").append(e.toLine()).append('\n'));
    sb.append(set.summary()).append('\n');
    for (RegisterChecker.KeyVerdict v : registers) {
      String verdict = v.linearizable() == null ? "UNDECIDED"
          : v.linearizable() ? "LINEARIZABLE" : "NOT LINEARIZABLE";
      sb.append(String.format("register k=%d: %s (%d ops)%s%n", v.key(), verdict, v.ops(),
          v.detail().isEmpty() ? "" : ": " + v.detail()));
    }
    sb.append(bank.summary()).append('\n');
    sb.append("verdict: ").append(valid ? "VALID" : "INVALID").append('\n');
    return sb.toString();
  }
}
