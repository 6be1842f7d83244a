/**
 * Server metrics rendered as Prometheus text on {@code /metrics}: the registry (counters,
 * gauges, histograms and outside sources), Prometheus' naming rules that it enforces at
 * registration ({@code MetricNames}), the lint that checks rendered text with the same rules
 * ({@code MetricLint}), and the JVM's process gauges. It knows no server role: masters and
 * tservers register their own metrics; Ratis' are bridged by the {@code ratis} subpackage.
 */
package io.nyala.common.metrics;
