package io.nyala.common.metrics;

import java.util.List;
import java.util.Map;

/**
 * Metrics kept outside the registry (Ratis' own, for one), read each time {@code /metrics} is
 * rendered. The registry adds the {@code server} label, renders the families in name order with
 * its own, and drops a family whose name breaks {@link MetricNames}' rules or is already taken,
 * so a source cannot make the page invalid.
 */
@FunctionalInterface
public interface MetricSource {
  /** One sample: the family name plus {@code suffix} (e.g. {@code _count}), labels, value. */
  record Sample(String suffix, Map<String, String> labels, double value) {}

  /** One family with its samples; no two samples may have the same suffix and labels. */
  record Family(String name, MetricType type, String help, List<Sample> samples) {}

  /** The families to render now; called from the thread rendering {@code /metrics}. */
  List<Family> collect();
}
