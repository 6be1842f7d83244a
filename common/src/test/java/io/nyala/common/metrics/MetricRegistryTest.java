package io.nyala.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MetricRegistryTest {
  @Test
  void rendersPrometheusTextWithServerLabel() {
    MetricRegistry r = new MetricRegistry("ts-1");
    r.counter("rpc_requests_total", "calls", Map.of("method", "Write")).add(3);
    r.counter("rpc_requests_total", "calls", Map.of("method", "Scan")).inc();
    r.gauge("tablets_total", "tablets", () -> 7);
    String text = r.renderPrometheus();
    assertThat(text).contains("# TYPE rpc_requests_total counter")
        .contains("rpc_requests_total{server=\"ts-1\",method=\"Write\"} 3")
        .contains("rpc_requests_total{server=\"ts-1\",method=\"Scan\"} 1")
        .contains("# TYPE tablets_total gauge")
        .contains("tablets_total{server=\"ts-1\"} 7");
    assertThat(r.value("tablets_total")).isEqualTo(7);
  }
}
