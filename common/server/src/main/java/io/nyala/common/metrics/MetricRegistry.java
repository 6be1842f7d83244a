package io.nyala.common.metrics;

import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One server's metrics, rendered in the Prometheus text format. Counters only go up; gauges are
 * read when rendered; histograms count observations in fixed buckets. Every sample carries the
 * server's name as a {@code server} label so that several servers in one JVM (the minicluster)
 * stay apart. Registration refuses a name that breaks Prometheus' naming rules
 * ({@link MetricNames}, listed in {@code docs/architecture.md}, "Metrics"), so
 * {@code promtool check metrics} stays clean on every server.
 */
public final class MetricRegistry {
  /** A monotonically increasing count. */
  public static final class Counter {
    private final LongAdder adder = new LongAdder();

    /** Adds one. */
    public void inc() {
      adder.increment();
    }

    /** Adds {@code n}, which must not be negative. */
    public void add(long n) {
      adder.add(n);
    }

    /** The count so far. */
    public long get() {
      return adder.sum();
    }
  }

  /**
   * Observations counted in fixed buckets chosen at registration, rendered as Prometheus
   * renders a histogram: cumulative {@code _bucket{le="..."}} series ending with
   * {@code le="+Inf"}, then {@code _sum} and {@code _count}.
   */
  public static final class Histogram {
    private final double[] bounds;
    /** Per bucket, not cumulative; the last one is the +Inf bucket. */
    private final LongAdder[] buckets;
    private final DoubleAdder sum = new DoubleAdder();

    private Histogram(double[] bounds) {
      this.bounds = bounds.clone();
      this.buckets = new LongAdder[bounds.length + 1];
      for (int i = 0; i < buckets.length; i++) {
        buckets[i] = new LongAdder();
      }
    }

    /** Counts one observation in the first bucket whose bound is at least {@code v}. */
    public void observe(double v) {
      int i = 0;
      while (i < bounds.length && v > bounds[i]) {
        i++;
      }
      buckets[i].increment();
      sum.add(v);
    }

    /** Observations so far. */
    public long count() {
      long n = 0;
      for (LongAdder b : buckets) {
        n += b.sum();
      }
      return n;
    }

    /** The sum of all observations. */
    public double sum() {
      return sum.sum();
    }

    /** Observations at most {@code bound} (one of the registered bounds), for tests. */
    public long countAtMost(double bound) {
      long n = 0;
      for (int i = 0; i < bounds.length && bounds[i] <= bound; i++) {
        n += buckets[i].sum();
      }
      return n;
    }

    private void render(StringBuilder sb, String name, String labels) {
      // One read of every bucket, so the +Inf bucket and _count agree.
      String open = labels.substring(0, labels.length() - 1) + ",le=\"";
      long cumulative = 0;
      for (int i = 0; i <= bounds.length; i++) {
        cumulative += buckets[i].sum();
        String le = i < bounds.length ? format(bounds[i]) : "+Inf";
        sb.append(name).append("_bucket").append(open).append(le).append("\"} ")
            .append(cumulative).append('\n');
      }
      sb.append(name).append("_sum").append(labels).append(' ').append(format(sum())).append('\n');
      sb.append(name).append("_count").append(labels).append(' ').append(cumulative)
          .append('\n');
    }
  }

  private record Family(String name, String help, MetricType type) {}

  /**
   * One series: a {@link Counter} or {@link Histogram} this registry owns, or a
   * {@link LongSupplier} / {@link DoubleSupplier} read when rendered (gauges and counters whose
   * count lives with their owner).
   */
  private record Series(Family family, String labels, Object source) {}

  private final String serverName;
  /** Keyed by name + labels; insertion from any thread. */
  private final Map<String, Series> series = new ConcurrentHashMap<>();
  private final List<MetricSource> sources = new CopyOnWriteArrayList<>();

  /** An empty registry whose samples all carry {@code server="serverName"}. */
  public MetricRegistry(String serverName) {
    this.serverName = serverName;
  }

  /** A counter with no labels; see {@link #counter(String, String, Map)}. */
  public Counter counter(String name, String help) {
    return counter(name, help, Map.of());
  }

  /**
   * Returns the counter with this name and labels, creating it once.
   *
   * @throws NyalaException INVALID_ARGUMENT if the name breaks {@link MetricNames}' rules (a
   *     counter's ends in {@code _total}) or is taken by another type
   */
  public Counter counter(String name, String help, Map<String, String> labels) {
    return (Counter) register(name, help, MetricType.COUNTER, labels, Counter::new, false);
  }

  /**
   * A counter whose count its owner keeps, read when rendered: for counts that already live
   * elsewhere (a block manager's holes punched). The value must never go down while the server
   * runs. Registering the name and labels again replaces the supplier.
   */
  public void counterFrom(String name, String help, LongSupplier value) {
    counterFrom(name, help, Map.of(), value);
  }

  /** A labelled {@link #counterFrom(String, String, LongSupplier)}. */
  public void counterFrom(String name, String help, Map<String, String> labels,
      LongSupplier value) {
    register(name, help, MetricType.COUNTER, labels, () -> value, true);
  }

  /** A {@link #counterFrom(String, String, LongSupplier)} of a fractional count (seconds). */
  public void doubleCounterFrom(String name, String help, DoubleSupplier value) {
    register(name, help, MetricType.COUNTER, Map.of(), () -> value, true);
  }

  /** A gauge read when rendered; registering the name and labels again replaces it. */
  public void gauge(String name, String help, LongSupplier value) {
    gauge(name, help, Map.of(), value);
  }

  /** A labelled {@link #gauge(String, String, LongSupplier)}. */
  public void gauge(String name, String help, Map<String, String> labels, LongSupplier value) {
    register(name, help, MetricType.GAUGE, labels, () -> value, true);
  }

  /** A gauge of a fractional value (seconds, ratios). */
  public void doubleGauge(String name, String help, DoubleSupplier value) {
    register(name, help, MetricType.GAUGE, Map.of(), () -> value, true);
  }

  /** A histogram with no labels; see {@link #histogram(String, String, Map, double...)}. */
  public Histogram histogram(String name, String help, double... buckets) {
    return histogram(name, help, Map.of(), buckets);
  }

  /**
   * Returns the histogram with this name and labels, creating it once with these bucket upper
   * bounds (finite, strictly increasing; the +Inf bucket is implied).
   */
  public Histogram histogram(String name, String help, Map<String, String> labels,
      double... buckets) {
    for (int i = 0; i < buckets.length; i++) {
      if (!Double.isFinite(buckets[i]) || (i > 0 && buckets[i] <= buckets[i - 1])) {
        throw NyalaException.invalidArgument("histogram %s: bucket bounds must be finite and "
            + "strictly increasing, not %s", name, Arrays.toString(buckets));
      }
    }
    return (Histogram) register(name, help, MetricType.HISTOGRAM, labels,
        () -> new Histogram(buckets), false);
  }

  /** Adds metrics kept outside this registry to what {@link #renderPrometheus()} renders. */
  public void addSource(MetricSource source) {
    sources.add(source);
  }

  /**
   * Checks the name against {@link MetricNames} and against the type its family already has,
   * then returns the series' source: created once, or replaced when {@code replace} (a
   * supplier registered again by a restarted component).
   */
  private Object register(String name, String help, MetricType type, Map<String, String> labels,
      Supplier<Object> source, boolean replace) {
    MetricNames.check(name, type, labels.keySet());
    for (Series other : series.values()) {
      if (other.family().name().equals(name) && other.family().type() != type) {
        throw NyalaException.invalidArgument("metric %s: already registered as a %s, not a %s",
            name, other.family().type().text(), type.text());
      }
    }
    String l = labels(labels);
    Family f = new Family(name, help, type);
    if (replace) {
      Series s = new Series(f, l, source.get());
      series.put(name + l, s);
      return s.source();
    }
    return series.computeIfAbsent(name + l, k -> new Series(f, l, source.get())).source();
  }

  /**
   * The value of a counter or gauge (for tests and pages), a histogram's count, or -1 if
   * absent.
   */
  public long value(String name, Map<String, String> labels) {
    Series s = series.get(name + labels(labels));
    if (s == null) {
      return -1;
    }
    return read(s.source()).longValue();
  }

  /** {@link #value(String, Map)} of a series with no labels. */
  public long value(String name) {
    return value(name, Map.of());
  }

  private static Number read(Object src) {
    if (src instanceof Counter c) {
      return c.get();
    }
    if (src instanceof Histogram h) {
      return h.count();
    }
    if (src instanceof LongSupplier ls) {
      return ls.getAsLong();
    }
    return ((DoubleSupplier) src).getAsDouble();
  }

  private String labels(Map<String, String> labels) {
    StringBuilder sb = new StringBuilder("{server=\"").append(escape(serverName)).append('"');
    new TreeMap<>(labels).forEach((k, v) ->
        sb.append(',').append(k).append("=\"").append(escape(v)).append('"'));
    return sb.append('}').toString();
  }

  private static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  /** A sample value as Prometheus writes it: integers plain, {@code +Inf}, {@code NaN}. */
  static String format(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    return Double.toString(v);
  }

  /** The whole registry in the Prometheus text exposition format (version 0.0.4). */
  public String renderPrometheus() {
    Map<String, List<Series>> byFamily = new TreeMap<>();
    for (Series s : series.values()) {
      byFamily.computeIfAbsent(s.family().name(), k -> new ArrayList<>()).add(s);
    }
    Map<String, MetricSource.Family> external = collectSources(byFamily);
    TreeMap<String, Object> all = new TreeMap<>(byFamily);
    all.putAll(external);
    StringBuilder sb = new StringBuilder();
    all.forEach((name, family) -> {
      if (family instanceof MetricSource.Family ef) {
        renderExternal(sb, ef);
      } else {
        @SuppressWarnings("unchecked")
        List<Series> list = (List<Series>) family;
        renderOwn(sb, list);
      }
    });
    return sb.toString();
  }

  private void renderOwn(StringBuilder sb, List<Series> list) {
    Family f = list.get(0).family();
    header(sb, f.name(), f.help(), f.type());
    list.sort(Comparator.comparing(Series::labels));
    for (Series s : list) {
      if (s.source() instanceof Histogram h) {
        h.render(sb, f.name(), s.labels());
        continue;
      }
      Number v;
      try {
        v = read(s.source());
      } catch (RuntimeException ex) {
        continue; // a gauge whose owner is shutting down
      }
      String text = v instanceof Double d ? format(d) : v.toString();
      sb.append(f.name()).append(s.labels()).append(' ').append(text).append('\n');
    }
  }

  /** The sources' families whose names are valid and not taken, by name. */
  private Map<String, MetricSource.Family> collectSources(Map<String, List<Series>> own) {
    Map<String, MetricSource.Family> out = new HashMap<>();
    for (MetricSource src : sources) {
      List<MetricSource.Family> families;
      try {
        families = src.collect();
      } catch (RuntimeException e) {
        continue; // a source whose owner is shutting down
      }
      for (MetricSource.Family f : families) {
        if (!own.containsKey(f.name()) && !out.containsKey(f.name())
            && MetricNames.problems(f.name(), f.type()).isEmpty()) {
          out.put(f.name(), f);
        }
      }
    }
    return out;
  }

  private void renderExternal(StringBuilder sb, MetricSource.Family f) {
    header(sb, f.name(), f.help(), f.type());
    for (MetricSource.Sample s : f.samples()) {
      sb.append(f.name()).append(s.suffix()).append(labels(s.labels())).append(' ')
          .append(format(s.value())).append('\n');
    }
  }

  private static void header(StringBuilder sb, String name, String help, MetricType type) {
    sb.append("# HELP ").append(name).append(' ').append(escapeHelp(help)).append('\n');
    sb.append("# TYPE ").append(name).append(' ').append(type.text()).append('\n');
  }

  private static String escapeHelp(String help) {
    return help.replace("\\", "\\\\").replace("\n", "\\n");
  }
}
