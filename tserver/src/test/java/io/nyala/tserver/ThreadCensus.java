package io.nyala.tserver;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The JVM's live threads grouped by name with ids, uuids and counters stripped, so that the
 * threads Ratis starts per division ({@code <peer>@group-<id>-StateMachineUpdater}) fold into
 * one line whose count is the number of divisions (docs/dense-nodes.md).
 */
record ThreadCensus(int total, Map<String, Integer> byName) {
  /** Hex runs of 6+ characters: peer ids, group ids, server names with a uuid. */
  private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{6,}");
  private static final Pattern DIGITS = Pattern.compile("\\d+");

  static ThreadCensus take() {
    Map<String, Integer> by = new TreeMap<>();
    int n = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive()) {
        n++;
        by.merge(shape(t.getName()), 1, Integer::sum);
      }
    }
    return new ThreadCensus(n, by);
  }

  static String shape(String name) {
    return DIGITS.matcher(HEX.matcher(name).replaceAll("*")).replaceAll("#");
  }

  /** One line per name shape, with its count here and in {@code before} (for a diff). */
  String histogram(ThreadCensus before) {
    Map<String, int[]> rows = new TreeMap<>();
    before.byName.forEach((k, v) -> rows.computeIfAbsent(k, x -> new int[2])[0] = v);
    byName.forEach((k, v) -> rows.computeIfAbsent(k, x -> new int[2])[1] = v);
    StringBuilder sb = new StringBuilder(String.format("%6s %6s  %s%n", "before", "after",
        "thread name (ids stripped)"));
    rows.forEach((k, v) -> sb.append(String.format("%6d %6d  %s%n", v[0], v[1], k)));
    return sb.append(String.format("%6d %6d  total%n", before.total, total)).toString();
  }
}
