package io.nyala.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
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

  @Test
  void histogramRendersCumulativeBucketsSumAndCount() {
    MetricRegistry r = new MetricRegistry("ts-1");
    MetricRegistry.Histogram h = r.histogram("tablet_wake_latency_ms", "Wake latency (ms)",
        10, 100, 1000);
    for (double v : new double[] {1, 10, 11, 500, 5000}) {
      h.observe(v);
    }
    assertThat(r.histogram("tablet_wake_latency_ms", "again", 10, 100, 1000)).isSameAs(h);
    assertThat(h.count()).isEqualTo(5);
    assertThat(h.countAtMost(100)).isEqualTo(3);
    assertThat(r.value("tablet_wake_latency_ms")).isEqualTo(5);
    // Cumulative buckets; a value equal to a bound falls in its bucket (le: "less or equal").
    assertThat(r.renderPrometheus()).isEqualTo("""
        # HELP tablet_wake_latency_ms Wake latency (ms)
        # TYPE tablet_wake_latency_ms histogram
        tablet_wake_latency_ms_bucket{server="ts-1",le="10.0"} 2
        tablet_wake_latency_ms_bucket{server="ts-1",le="100.0"} 3
        tablet_wake_latency_ms_bucket{server="ts-1",le="1000.0"} 4
        tablet_wake_latency_ms_bucket{server="ts-1",le="+Inf"} 5
        tablet_wake_latency_ms_sum{server="ts-1"} 5522.0
        tablet_wake_latency_ms_count{server="ts-1"} 5
        """);
  }

  @Test
  void histogramKeepsItsLabelsBeforeLe() {
    MetricRegistry r = new MetricRegistry("m");
    r.histogram("op_millis", "ops", Map.of("op", "wake"), 1).observe(2);
    assertThat(r.renderPrometheus())
        .contains("op_millis_bucket{server=\"m\",op=\"wake\",le=\"1.0\"} 0\n")
        .contains("op_millis_bucket{server=\"m\",op=\"wake\",le=\"+Inf\"} 1\n")
        .contains("op_millis_count{server=\"m\",op=\"wake\"} 1\n");
  }

  @Test
  void histogramRefusesUnorderedOrInfiniteBounds() {
    MetricRegistry r = new MetricRegistry("m");
    assertThatThrownBy(() -> r.histogram("h", "h", 5, 5))
        .isInstanceOf(NyalaException.class).hasMessageContaining("histogram h");
    assertThatThrownBy(() -> r.histogram("h", "h", 1, Double.POSITIVE_INFINITY))
        .isInstanceOf(NyalaException.class);
  }
}
