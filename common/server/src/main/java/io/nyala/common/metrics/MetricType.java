package io.nyala.common.metrics;

import java.util.Locale;

/** The Prometheus metric types this server exports, as the {@code # TYPE} line spells them. */
public enum MetricType {
  COUNTER,
  GAUGE,
  HISTOGRAM,
  SUMMARY;

  /** The type as written after the metric name on a {@code # TYPE} line. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The type a {@code # TYPE} line names, or null for a type this server never exports. */
  public static MetricType ofText(String text) {
    for (MetricType t : values()) {
      if (t.text().equals(text)) {
        return t;
      }
    }
    return null;
  }
}
