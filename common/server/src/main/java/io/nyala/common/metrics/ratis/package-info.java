/**
 * Ratis' own metrics (elections, log syncs, appenders, the state machine updater) on this
 * server's {@code /metrics}: it reads the registries Ratis keeps in
 * {@code org.apache.ratis.metrics.MetricRegistries}, picks this server's, and renames them by
 * Prometheus' rules ({@code ratis_} prefix, a {@code group} and {@code peer} label). It only
 * reads Ratis' registries, never creates or removes one, and knows nothing of tablets.
 */
package io.nyala.common.metrics.ratis;
