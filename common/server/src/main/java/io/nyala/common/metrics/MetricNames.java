package io.nyala.common.metrics;

import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Prometheus' naming rules for metric and label names: the data model's character set plus
 * what {@code promtool check metrics} lints, and a little more (base units for {@code millis}
 * and the like, which promtool lets through). The registry refuses a name that breaks them and
 * the exposition lint ({@link MetricLint}) checks rendered text with the same rules; the rules
 * are listed in {@code docs/architecture.md}, "Metrics".
 */
public final class MetricNames {
  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  /** Name parts that are a unit other than the base one, and the base unit to use instead. */
  private static final Map<String, String> NON_BASE_UNITS = Map.ofEntries(
      Map.entry("milliseconds", "seconds"), Map.entry("microseconds", "seconds"),
      Map.entry("nanoseconds", "seconds"), Map.entry("millis", "seconds"),
      Map.entry("micros", "seconds"), Map.entry("nanos", "seconds"),
      Map.entry("minutes", "seconds"), Map.entry("hours", "seconds"),
      Map.entry("days", "seconds"), Map.entry("weeks", "seconds"),
      Map.entry("bits", "bytes"), Map.entry("kilobytes", "bytes"),
      Map.entry("megabytes", "bytes"), Map.entry("gigabytes", "bytes"),
      Map.entry("terabytes", "bytes"), Map.entry("kibibytes", "bytes"),
      Map.entry("mebibytes", "bytes"), Map.entry("gibibytes", "bytes"),
      Map.entry("percent", "ratio"));
  /** Name parts that abbreviate a unit, as promtool lists them. */
  private static final Set<String> ABBREVIATED_UNITS = Set.of("s", "ms", "us", "ns", "sec",
      "b", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "m", "km", "g", "kg");
  private static final Set<String> TYPE_WORDS = Set.of("counter", "gauge", "histogram",
      "summary");
  private static final List<String> RESERVED_SUFFIXES = List.of("_bucket", "_count", "_sum");

  private MetricNames() {}

  /**
   * What is wrong with this family name for this type, one sentence each; empty if nothing.
   */
  public static List<String> problems(String name, MetricType type) {
    List<String> out = new ArrayList<>();
    if (!METRIC_NAME.matcher(name).matches()) {
      out.add("is not a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)");
      return out;
    }
    if (name.contains(":")) {
      out.add("contains ':', which is reserved for recording rules");
    }
    if (!name.equals(name.toLowerCase(Locale.ROOT))) {
      out.add("is not snake_case");
    }
    if (type == MetricType.COUNTER && !name.endsWith("_total")) {
      out.add("is a counter, so its name must end in _total");
    }
    if (type != MetricType.COUNTER && name.endsWith("_total")) {
      out.add("is a " + type.text() + ", so its name must not end in _total (only counters)");
    }
    for (String suffix : RESERVED_SUFFIXES) {
      if (name.endsWith(suffix)) {
        out.add("ends in " + suffix + ", which histograms and summaries add to their samples");
      }
    }
    for (String part : name.split("_")) {
      if (TYPE_WORDS.contains(part)) {
        out.add("names its type ('" + part + "'); the TYPE line says it");
      } else if (NON_BASE_UNITS.containsKey(part)) {
        out.add("uses the unit '" + part + "'; use the base unit '" + NON_BASE_UNITS.get(part)
            + "' (and values in it)");
      } else if (ABBREVIATED_UNITS.contains(part)) {
        out.add("abbreviates a unit ('" + part + "'); spell the base unit out (_seconds, "
            + "_bytes)");
      }
    }
    return out;
  }

  /** What is wrong with this label name on a family of this type; empty if nothing. */
  public static List<String> labelProblems(String label, MetricType type) {
    List<String> out = new ArrayList<>();
    if (!LABEL_NAME.matcher(label).matches() || label.startsWith("__")) {
      out.add("label '" + label + "' is not a valid label name ([a-zA-Z_][a-zA-Z0-9_]*, no "
          + "leading __)");
    } else if (!label.equals(label.toLowerCase(Locale.ROOT))) {
      out.add("label '" + label + "' is not snake_case");
    }
    if (label.equals("le") && type != MetricType.HISTOGRAM) {
      out.add("label 'le' is reserved for histograms' buckets");
    }
    if (label.equals("quantile") && type != MetricType.SUMMARY) {
      out.add("label 'quantile' is reserved for summaries");
    }
    return out;
  }

  /**
   * Refuses a family name or label name that breaks the rules, naming the metric.
   *
   * @throws NyalaException INVALID_ARGUMENT listing every broken rule
   */
  public static void check(String name, MetricType type, Set<String> labels) {
    List<String> all = new ArrayList<>(problems(name, type));
    for (String l : labels) {
      all.addAll(labelProblems(l, type));
    }
    if (!all.isEmpty()) {
      throw NyalaException.invalidArgument("metric %s (%s): %s", name,
          type.text(), String.join("; ", all));
    }
  }
}
