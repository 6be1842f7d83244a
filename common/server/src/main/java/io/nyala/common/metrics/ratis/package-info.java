/**
 * Ratis' own metrics (elections, log syncs, appenders, the state machine updater): Nyala's
 * implementation of Ratis' metrics SPI ({@link io.nyala.common.metrics.ratis.RatisRegistries},
 * loaded by Ratis through META-INF/services; counters and timers that cost a few adds per
 * update, no JMX), and their rendering on this server's {@code /metrics}
 * ({@link io.nyala.common.metrics.ratis.RatisMetricSource}), renamed by Prometheus' rules
 * ({@code ratis_} prefix, a {@code group} and {@code peer} label). Ratis creates and removes the
 * registries; the rendering only reads them, and nothing here knows of tablets.
 */
package io.nyala.common.metrics.ratis;
