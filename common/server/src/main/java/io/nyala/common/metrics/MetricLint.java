package io.nyala.common.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lints Prometheus text (format 0.0.4) as {@code promtool check metrics} does, with the rules of
 * {@link MetricNames}: each family has one HELP (not empty) and one TYPE line before its first
 * sample, its samples are together, each sample's name is the family's (plus
 * {@code _bucket}/{@code _sum}/{@code _count} for histograms, {@code _sum}/{@code _count} for
 * summaries), histogram buckets carry {@code le}, and values parse. Tests run it on every
 * server's {@code /metrics}; it needs no promtool.
 */
public final class MetricLint {
  private static final Pattern SAMPLE = Pattern.compile(
      "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)( -?\\d+)?");
  private static final Pattern LABEL = Pattern.compile(
      "([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"(,|$)");

  /** What one family's lines said so far. */
  private static final class FamilyState {
    boolean help;
    MetricType type;
    boolean sampled;
    boolean closed;
  }

  private final Map<String, FamilyState> families = new HashMap<>();
  private final Set<String> seenSeries = new HashSet<>();
  private final List<String> problems = new ArrayList<>();
  private String current;

  private MetricLint() {}

  /** Every problem of this text, one line each ({@code line N: name: problem}); empty if clean. */
  public static List<String> lint(String text) {
    MetricLint l = new MetricLint();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      l.line(i + 1, lines[i]);
    }
    l.finish();
    return l.problems;
  }

  private void line(int n, String line) {
    if (line.isEmpty()) {
      return;
    }
    if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
      meta(n, line);
    } else if (!line.startsWith("#")) {
      sample(n, line);
    }
  }

  private void meta(int n, String line) {
    String[] f = line.substring(7).split(" ", 2);
    String name = f[0];
    String rest = f.length > 1 ? f[1] : "";
    FamilyState s = enter(n, name);
    if (s.sampled) {
      problem(n, name, line.substring(2, 6) + " after its samples");
    }
    if (line.startsWith("# HELP ")) {
      if (s.help) {
        problem(n, name, "second HELP line");
      }
      s.help = true;
      if (rest.isBlank()) {
        problem(n, name, "no help text");
      }
      return;
    }
    if (s.type != null) {
      problem(n, name, "second TYPE line");
    }
    s.type = MetricType.ofText(rest);
    if (s.type == null) {
      problem(n, name, "unknown type '" + rest + "'");
      return;
    }
    for (String p : MetricNames.problems(name, s.type)) {
      problem(n, name, p);
    }
  }

  private FamilyState enter(int n, String family) {
    if (!family.equals(current)) {
      if (current != null) {
        families.get(current).closed = true;
      }
      current = family;
    }
    FamilyState s = families.computeIfAbsent(family, k -> new FamilyState());
    if (s.closed) {
      problem(n, family, "lines of this family are not together");
      s.closed = false;
    }
    return s;
  }

  private void sample(int n, String line) {
    Matcher m = SAMPLE.matcher(line);
    if (!m.matches()) {
      problem(n, line, "not a sample line");
      return;
    }
    String name = m.group(1);
    String family = familyOf(name);
    FamilyState s = families.get(family);
    if (s == null || s.type == null || !family.equals(current)) {
      problem(n, name, "sample without a TYPE line before it in its family");
      if (s == null) {
        return;
      }
    }
    s.sampled = true;
    Map<String, String> labels = labels(n, name, m.group(3) == null ? "" : m.group(3));
    checkSample(n, name, family, s.type, labels);
    if (!parses(m.group(4))) {
      problem(n, name, "value '" + m.group(4) + "' is not a number");
    }
    if (!seenSeries.add(name + new TreeMap<>(labels))) {
      problem(n, name, "duplicate series " + labels);
    }
  }

  /** The family a sample belongs to: the current one if its name derives from it. */
  private String familyOf(String sample) {
    if (current != null && (sample.equals(current) || sample.equals(current + "_bucket")
        || sample.equals(current + "_sum") || sample.equals(current + "_count"))) {
      return current;
    }
    return sample;
  }

  private void checkSample(int n, String name, String family, MetricType type,
      Map<String, String> labels) {
    if (type == null) {
      return;
    }
    String suffix = name.substring(family.length());
    boolean ok = switch (type) {
      case COUNTER, GAUGE -> suffix.isEmpty();
      case HISTOGRAM -> suffix.equals("_bucket") || suffix.equals("_sum")
          || suffix.equals("_count");
      case SUMMARY -> suffix.isEmpty() || suffix.equals("_sum") || suffix.equals("_count");
    };
    if (!ok) {
      problem(n, name, "sample name does not fit its " + type.text() + " family " + family);
    }
    if (type == MetricType.HISTOGRAM && suffix.equals("_bucket") && !labels.containsKey("le")) {
      problem(n, name, "histogram bucket without an 'le' label");
    }
    if (type == MetricType.SUMMARY && suffix.isEmpty() && !labels.containsKey("quantile")) {
      problem(n, name, "summary quantile without a 'quantile' label");
    }
    for (String l : labels.keySet()) {
      for (String p : MetricNames.labelProblems(l, type)) {
        problem(n, name, p);
      }
    }
  }

  private Map<String, String> labels(int n, String name, String text) {
    Map<String, String> out = new HashMap<>();
    Matcher m = LABEL.matcher(text);
    int at = 0;
    while (at < text.length() && m.find(at) && m.start() == at) {
      if (out.put(m.group(1), m.group(2)) != null) {
        problem(n, name, "label '" + m.group(1) + "' given twice");
      }
      at = m.end();
    }
    if (at != text.length()) {
      problem(n, name, "labels do not parse: {" + text + "}");
    }
    return out;
  }

  private static boolean parses(String v) {
    if (v.equals("+Inf") || v.equals("-Inf") || v.equals("NaN")) {
      return true;
    }
    try {
      Double.parseDouble(v);
      return !v.endsWith("d") && !v.endsWith("f") && !v.endsWith("D") && !v.endsWith("F");
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private void finish() {
    families.forEach((name, s) -> {
      if (!s.help) {
        problems.add(name + ": no HELP line");
      }
      if (s.type == null) {
        problems.add(name + ": no TYPE line");
      }
    });
  }

  private void problem(int line, String name, String what) {
    problems.add("line " + line + ": " + name + ": " + what);
  }
}
