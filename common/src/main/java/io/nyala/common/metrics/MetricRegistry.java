package io.nyala.common.metrics;

import io.nyala.common.NyalaException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * One server's metrics, rendered in the Prometheus text format. Counters only go up; gauges are
 * read when rendered; histograms count observations in fixed buckets. Every sample carries the
 * server's name as a {@code server} label so that several servers in one JVM (the minicluster)
 * stay apart.
 */
public final class MetricRegistry {
  /** A monotonically increasing count. */
  public static final class Counter {
    private final LongAdder adder = new LongAdder();

    public void inc() {
      adder.increment();
    }

    public void add(long n) {
      adder.add(n);
    }

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
        String le = i < bounds.length ? Double.toString(bounds[i]) : "+Inf";
        sb.append(name).append("_bucket").append(open).append(le).append("\"} ")
            .append(cumulative).append('\n');
      }
      sb.append(name).append("_sum").append(labels).append(' ').append(sum()).append('\n');
      sb.append(name).append("_count").append(labels).append(' ').append(cumulative)
          .append('\n');
    }
  }

  private record Family(String name, String help, String type) {}

  private record Series(Family family, String labels, Object source) {}

  private final String serverName;
  /** Keyed by name + labels; insertion from any thread. */
  private final Map<String, Series> series = new ConcurrentHashMap<>();

  public MetricRegistry(String serverName) {
    this.serverName = serverName;
  }

  public Counter counter(String name, String help) {
    return counter(name, help, Map.of());
  }

  /** Returns the counter with this name and labels, creating it once. */
  public Counter counter(String name, String help, Map<String, String> labels) {
    String l = labels(labels);
    Series s = series.computeIfAbsent(name + l,
        k -> new Series(new Family(name, help, "counter"), l, new Counter()));
    return (Counter) s.source();
  }

  public void gauge(String name, String help, LongSupplier value) {
    gauge(name, help, Map.of(), value);
  }

  public void gauge(String name, String help, Map<String, String> labels, LongSupplier value) {
    String l = labels(labels);
    series.put(name + l, new Series(new Family(name, help, "gauge"), l, value));
  }

  public void doubleGauge(String name, String help, DoubleSupplier value) {
    String l = labels(Map.of());
    series.put(name + l, new Series(new Family(name, help, "gauge"), l, value));
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
            + "strictly increasing, not %s", name, java.util.Arrays.toString(buckets));
      }
    }
    String l = labels(labels);
    Series s = series.computeIfAbsent(name + l,
        k -> new Series(new Family(name, help, "histogram"), l, new Histogram(buckets)));
    return (Histogram) s.source();
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

  /** The whole registry in the Prometheus text exposition format (version 0.0.4). */
  public String renderPrometheus() {
    Map<String, java.util.List<Series>> byFamily = new TreeMap<>();
    for (Series s : series.values()) {
      byFamily.computeIfAbsent(s.family().name(), k -> new java.util.ArrayList<>()).add(s);
    }
    StringBuilder sb = new StringBuilder();
    for (var e : byFamily.entrySet()) {
      Family f = e.getValue().get(0).family();
      sb.append("# HELP ").append(f.name()).append(' ').append(f.help()).append('\n');
      sb.append("# TYPE ").append(f.name()).append(' ').append(f.type()).append('\n');
      e.getValue().sort(java.util.Comparator.comparing(Series::labels));
      for (Series s : e.getValue()) {
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
        sb.append(f.name()).append(s.labels()).append(' ').append(v).append('\n');
      }
    }
    return sb.toString();
  }
}
