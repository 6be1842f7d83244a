package io.nyala.itests.nemesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks the set workload: after healing, every INSERT acknowledged ok must be present, and no
 * key whose INSERT definitely failed may be; an unknown INSERT may be either. Keys are unique,
 * so a failed INSERT whose key is present means a write applied although the cluster said it
 * did not (e.g. a retry answered ALREADY_PRESENT for its own first attempt).
 */
final class SetChecker {
  private SetChecker() {}

  /**
   * The verdict.
   *
   * @param ok inserts acknowledged
   * @param fail inserts that definitely failed
   * @param unknownPresent unknown inserts that applied
   * @param unknownAbsent unknown inserts that did not
   * @param lost acknowledged keys missing from the final read
   * @param resurrected failed keys present in the final read
   * @param unexpected keys present that no insert wrote
   */
  record Verdict(int ok, int fail, int unknownPresent, int unknownAbsent, Set<Long> lost,
      Set<Long> resurrected, Set<Long> unexpected) {
    boolean valid() {
      return lost.isEmpty() && resurrected.isEmpty() && unexpected.isEmpty();
    }

    String summary() {
      return String.format("set: %s ok=%d fail=%d unknown-present=%d unknown-absent=%d "
          + "lost=%s resurrected=%s unexpected=%s", valid() ? "VALID" : "INVALID", ok, fail,
          unknownPresent, unknownAbsent, first(lost), first(resurrected), first(unexpected));
    }

    private static String first(Set<Long> keys) {
      List<Long> some = new ArrayList<>(keys).subList(0, Math.min(keys.size(), 20));
      return keys.size() + (keys.isEmpty() ? "" : " " + some);
    }
  }

  /** Judges the INSERTs of {@code events} against the keys read at the end. */
  static Verdict check(List<HistoryOp> events, Set<Long> finalKeys) {
    Map<Long, Outcome> outcomes = new HashMap<>();
    for (HistoryOp e : events) {
      if (e.type() == OpType.INSERT) {
        outcomes.merge(e.key(), e.outcome(), (a, b) -> b == Outcome.INVOKE ? a : b);
      }
    }
    int ok = 0;
    int fail = 0;
    int unknownPresent = 0;
    int unknownAbsent = 0;
    Set<Long> lost = new TreeSet<>();
    Set<Long> resurrected = new TreeSet<>();
    for (Map.Entry<Long, Outcome> e : outcomes.entrySet()) {
      boolean present = finalKeys.contains(e.getKey());
      switch (e.getValue()) {
        case OK -> {
          ok++;
          if (!present) {
            lost.add(e.getKey());
          }
        }
        case FAIL -> {
          fail++;
          if (present) {
            resurrected.add(e.getKey());
          }
        }
        default -> {
          if (present) {
            unknownPresent++;
          } else {
            unknownAbsent++;
          }
        }
      }
    }
    Set<Long> unexpected = new TreeSet<>(finalKeys);
    unexpected.removeAll(outcomes.keySet());
    return new Verdict(ok, fail, unknownPresent, unknownAbsent, lost, resurrected, unexpected);
  }
}
