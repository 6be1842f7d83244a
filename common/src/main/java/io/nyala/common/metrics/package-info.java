/** Server metrics: counters and gauges rendered as Prometheus text on {@code /metrics}. */
package io.nyala.common.metrics;
