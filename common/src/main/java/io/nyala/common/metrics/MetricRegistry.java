package io.nyala.common.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * One server's metrics, rendered in the Prometheus text format. Counters only go up; gauges are
 * read when rendered. Every sample carries the server's name as a {@code server} label so that
 * several servers in one JVM (the minicluster) stay apart.
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

  /** The value of a counter or gauge (for tests and pages), or -1 if absent. */
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
