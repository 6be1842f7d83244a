package io.nyala.common.metrics.ratis;

import java.util.function.Supplier;

/** One metric of a {@link RatisRegistry}: a counter, a timer or a gauge. */
sealed interface RatisMetric permits RatisCounter, RatisTimer, RatisMetric.Gauge {
  /** A gauge: Ratis' supplier of its value, read at scrape time only. */
  record Gauge(Supplier<?> value) implements RatisMetric {}
}
