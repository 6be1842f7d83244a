package io.nyala.common.metrics.ratis;

import io.nyala.common.metrics.MetricNames;
import io.nyala.common.metrics.MetricSource;
import io.nyala.common.metrics.MetricType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis metrics of one server, for its {@code /metrics}. Ratis keeps one registry per
 * division and component in a JVM-wide {@link MetricRegistries}; a registry's prefix names its
 * owner ({@code <peer>@group-<id>} for a division, {@code <peer>} or {@code <peer>_...} for the
 * server), so this source takes the registries whose prefix starts with its peer id: in an
 * in-process minicluster each server shows its own. The registries are Nyala's own
 * ({@link RatisRegistries}): counters become {@code _total} counters, gauges with a numeric or
 * boolean value gauges, and timers summaries in seconds with {@code _count} and {@code _sum}
 * and no quantiles (the timers keep none), plus a gauge {@code <name>_max_seconds}, the longest
 * time since the previous scrape.
 *
 * <p>Cost is bounded: a dense node hosts thousands of divisions, each with a few registries of
 * tens of metrics. Only the first {@link #DEFAULT_MAX_GROUPS} groups (in group id order) are
 * rendered, with a {@code group} label; {@code ratis_metrics_groups} and
 * {@code ratis_metrics_groups_omitted} say how many there are and how many were left out
 * (docs/architecture.md, "Metrics"). A family whose mapped name would break the naming rules
 * is not rendered but counted in {@code ratis_metrics_families_refused} and logged once, so
 * that a mapping mistake shows instead of a metric silently missing.
 */
public final class RatisMetricSource implements MetricSource {
  /** Groups rendered per server; the rest are counted in {@code ratis_metrics_groups_omitted}. */
  public static final int DEFAULT_MAX_GROUPS = 32;
  private static final double NANOS_PER_SECOND = 1e9;

  private static final Logger LOG = LoggerFactory.getLogger(RatisMetricSource.class);

  private final String peerId;
  private final int maxGroups;
  /** Names of refused families already logged, so that each scrape does not log them again. */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  /** This server's Ratis metrics, for at most {@link #DEFAULT_MAX_GROUPS} groups. */
  public RatisMetricSource(String peerId) {
    this(peerId, DEFAULT_MAX_GROUPS);
  }

  /** This server's Ratis metrics, for at most {@code maxGroups} groups. */
  public RatisMetricSource(String peerId, int maxGroups) {
    this.peerId = peerId;
    this.maxGroups = maxGroups;
  }

  /** A registry of this server, with the group it belongs to (null for server-wide ones). */
  private record Owned(RatisRegistry registry, String group) {}

  @Override
  public List<Family> collect() {
    List<Owned> mine = new ArrayList<>();
    TreeSet<String> groups = new TreeSet<>();
    for (RatisMetricRegistry r : MetricRegistries.global().getMetricRegistries()) {
      String prefix = r.getMetricRegistryInfo().getPrefix();
      if (!(r instanceof RatisRegistry own) || prefix == null
          || !prefix.startsWith(peerId)) {
        continue;
      }
      String rest = prefix.substring(peerId.length());
      String group = rest.startsWith("@") ? rest.substring(1) : null;
      if (!rest.isEmpty() && group == null && !rest.startsWith("_")) {
        continue; // another peer whose id starts with ours
      }
      mine.add(new Owned(own, group));
      if (group != null) {
        groups.add(group);
      }
    }
    TreeSet<String> shown = new TreeSet<>(groups.stream().limit(maxGroups).toList());
    Map<String, Builder> families = new TreeMap<>();
    for (Owned o : mine) {
      if (o.group() == null || shown.contains(o.group())) {
        addRegistry(families, o);
      }
    }
    List<Family> out = new ArrayList<>();
    int refused = 0;
    for (Builder b : families.values()) {
      List<String> problems = MetricNames.problems(b.name, b.type);
      if (problems.isEmpty()) {
        out.add(new Family(b.name, b.type, b.help, b.samples));
      } else {
        refused++;
        if (warned.add(b.name)) {
          LOG.warn("Ratis metric family {} ({}) not rendered: {}", b.name, b.type.text(),
              String.join("; ", problems));
        }
      }
    }
    out.add(gauge("ratis_metrics_families_refused", "Ratis metric families not rendered "
        + "because their mapped name breaks the naming rules (each is logged once)", refused));
    out.add(gauge("ratis_metrics_groups", "Raft groups with Ratis metrics on this server",
        groups.size()));
    out.add(gauge("ratis_metrics_groups_omitted", "Raft groups whose Ratis metrics are not "
        + "rendered, beyond the first " + maxGroups + " (docs/architecture.md, \"Metrics\")",
        groups.size() - shown.size()));
    return out;
  }

  private static Family gauge(String name, String help, long value) {
    return new Family(name, MetricType.GAUGE, help, List.of(new Sample("", Map.of(), value)));
  }

  /** One family being built: its samples, in registry then metric order. */
  private static final class Builder {
    final String name;
    final MetricType type;
    final String help;
    final List<Sample> samples = new ArrayList<>();
    final Set<String> keys = new HashSet<>();

    Builder(String name, MetricType type, String help) {
      this.name = name;
      this.type = type;
      this.help = help;
    }

    void add(String suffix, Map<String, String> labels, double value) {
      if (keys.add(suffix + new TreeMap<>(labels))) {
        samples.add(new Sample(suffix, labels, value));
      }
    }
  }

  private void addRegistry(Map<String, Builder> families, Owned o) {
    MetricRegistryInfo info = o.registry().getMetricRegistryInfo();
    o.registry().forEach((name, metric) -> {
      RatisMetricNames.Mapped m = RatisMetricNames.map(info.getApplicationName(),
          info.getMetricsComponentName(), info.getPrefix(), name);
      Map<String, String> labels = new HashMap<>();
      if (o.group() != null) {
        labels.put("group", o.group());
      }
      if (m.peer() != null) {
        labels.put("peer", m.peer());
      }
      String help = "Ratis' " + info.getMetricsComponentName() + " metric "
          + m.ratisName() + " (" + info.getMetricsDescription() + ")";
      addMetric(families, m.base(), help, labels, metric);
    });
  }

  private static void addMetric(Map<String, Builder> families, String base, String help,
      Map<String, String> labels, RatisMetric metric) {
    if (metric instanceof RatisCounter c) {
      family(families, base + "_total", MetricType.COUNTER, help).add("", labels, c.getCount());
    } else if (metric instanceof RatisTimer t) {
      RatisTimer.Reading r = t.read();
      Builder b = family(families, base + "_seconds", MetricType.SUMMARY, help);
      b.add("_count", labels, r.count());
      b.add("_sum", labels, r.sumNanos() / NANOS_PER_SECOND);
      family(families, base + "_max_seconds", MetricType.GAUGE, "The longest of " + help
          + " since the previous scrape").add("", labels, r.maxNanos() / NANOS_PER_SECOND);
    } else if (metric instanceof RatisMetric.Gauge g) {
      Object v;
      try {
        v = g.value().get();
      } catch (RuntimeException e) {
        return; // a gauge whose division is closing
      }
      if (v instanceof Number n) {
        family(families, base, MetricType.GAUGE, help).add("", labels, n.doubleValue());
      } else if (v instanceof Boolean bool) {
        family(families, base, MetricType.GAUGE, help).add("", labels, bool ? 1 : 0);
      }
    }
  }

  /** The family of this name, created once; a second type under one name is dropped. */
  private static Builder family(Map<String, Builder> families, String name, MetricType type,
      String help) {
    Builder b = families.computeIfAbsent(name, k -> new Builder(name, type, help));
    return b.type == type ? b : new Builder(name, type, help); // a clash: drop the newcomer
  }
}
