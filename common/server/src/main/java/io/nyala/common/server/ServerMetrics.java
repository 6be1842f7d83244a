package io.nyala.common.server;

import io.nyala.common.fault.NetworkFaults;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.metrics.ProcessMetrics;
import io.nyala.common.metrics.ratis.RatisMetricSource;
import io.nyala.common.security.tls.WireTls;
import java.util.function.Supplier;

/** The metrics every server has, whatever its role (docs/architecture.md, "Metrics"). */
final class ServerMetrics {
  private ServerMetrics() {}

  /**
   * A server's registry with its uptime, the process' metrics, Ratis' metrics of the Raft peer
   * {@code ratisPeerId}, the expiry of the certificate it presents when it speaks TLS (read
   * from {@code tls} at each scrape: a renewal replaces it), and the calls an injected network
   * partition dropped.
   */
  static MetricRegistry create(String name, long startNanos, String ratisPeerId,
      Supplier<WireTls> tls, NetworkFaults networkFaults) {
    MetricRegistry metrics = new MetricRegistry(name);
    metrics.doubleGauge("server_uptime_seconds", "Seconds since the server started",
        () -> (System.nanoTime() - startNanos) / 1e9);
    ProcessMetrics.register(metrics);
    metrics.addSource(new RatisMetricSource(ratisPeerId));
    if (tls.get().speaksTls()) { // docs/architecture.md, "TLS and the internal CA"
      metrics.doubleGauge("certificate_expiry_seconds", "Seconds until the certificate this "
          + "server presents expires (negative once past)", () -> tls.get().secondsLeft());
    }
    metrics.counterFrom("network_partition_dropped_calls_total", "Inbound RPC and Raft calls "
        + "dropped because an injected network partition cuts their sender off",
        networkFaults::droppedCalls);
    return metrics;
  }
}
