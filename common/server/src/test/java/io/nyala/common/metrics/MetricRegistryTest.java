package io.nyala.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import java.util.List;
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
    r.gauge("tablets", "tablets", () -> 7);
    String text = r.renderPrometheus();
    assertThat(text).contains("# TYPE rpc_requests_total counter")
        .contains("rpc_requests_total{server=\"ts-1\",method=\"Write\"} 3")
        .contains("rpc_requests_total{server=\"ts-1\",method=\"Scan\"} 1")
        .contains("# TYPE tablets gauge")
        .contains("tablets{server=\"ts-1\"} 7");
    assertThat(r.value("tablets")).isEqualTo(7);
  }

  @Test
  void histogramRendersCumulativeBucketsSumAndCount() {
    MetricRegistry r = new MetricRegistry("ts-1");
    MetricRegistry.Histogram h = r.histogram("tablet_wake_latency_seconds", "Wake latency",
        10, 100, 1000);
    for (double v : new double[] {1, 10, 11, 500, 5000}) {
      h.observe(v);
    }
    assertThat(r.histogram("tablet_wake_latency_seconds", "again", 10, 100, 1000)).isSameAs(h);
    assertThat(h.count()).isEqualTo(5);
    assertThat(h.countAtMost(100)).isEqualTo(3);
    assertThat(r.value("tablet_wake_latency_seconds")).isEqualTo(5);
    // Cumulative buckets; a value equal to a bound falls in its bucket (le: "less or equal").
    assertThat(r.renderPrometheus()).isEqualTo("""
        # HELP tablet_wake_latency_seconds Wake latency
        # TYPE tablet_wake_latency_seconds histogram
        tablet_wake_latency_seconds_bucket{server="ts-1",le="10.0"} 2
        tablet_wake_latency_seconds_bucket{server="ts-1",le="100.0"} 3
        tablet_wake_latency_seconds_bucket{server="ts-1",le="1000.0"} 4
        tablet_wake_latency_seconds_bucket{server="ts-1",le="+Inf"} 5
        tablet_wake_latency_seconds_sum{server="ts-1"} 5522.0
        tablet_wake_latency_seconds_count{server="ts-1"} 5
        """);
  }

  @Test
  void histogramKeepsItsLabelsBeforeLe() {
    MetricRegistry r = new MetricRegistry("m");
    r.histogram("op_duration_seconds", "ops", Map.of("op", "wake"), 1).observe(2);
    assertThat(r.renderPrometheus())
        .contains("op_duration_seconds_bucket{server=\"m\",op=\"wake\",le=\"1.0\"} 0\n")
        .contains("op_duration_seconds_bucket{server=\"m\",op=\"wake\",le=\"+Inf\"} 1\n")
        .contains("op_duration_seconds_count{server=\"m\",op=\"wake\"} 1\n");
  }

  @Test
  void histogramRefusesUnorderedOrInfiniteBounds() {
    MetricRegistry r = new MetricRegistry("m");
    assertThatThrownBy(() -> r.histogram("h_seconds", "h", 5, 5))
        .isInstanceOf(NyalaException.class).hasMessageContaining("histogram h_seconds");
    assertThatThrownBy(() -> r.histogram("h_seconds", "h", 1, Double.POSITIVE_INFINITY))
        .isInstanceOf(NyalaException.class);
  }

  @Test
  void refusesNamesThatBreakPrometheusRulesNamingTheMetric() {
    MetricRegistry r = new MetricRegistry("m");
    assertThatThrownBy(() -> r.counter("cache_hits", "h"))
        .isInstanceOf(NyalaException.class).hasMessageContaining("metric cache_hits (counter)")
        .hasMessageContaining("must end in _total");
    assertThatThrownBy(() -> r.gauge("tablets_total", "h", () -> 1))
        .hasMessageContaining("metric tablets_total (gauge)")
        .hasMessageContaining("must not end in _total");
    assertThatThrownBy(() -> r.histogram("wake_latency_ms", "h", 1))
        .hasMessageContaining("wake_latency_ms").hasMessageContaining("abbreviates a unit");
    assertThatThrownBy(() -> r.gauge("uptime_millis", "h", () -> 1))
        .hasMessageContaining("use the base unit 'seconds'");
    assertThatThrownBy(() -> r.gauge("bad-name", "h", () -> 1))
        .hasMessageContaining("not a valid metric name");
    assertThatThrownBy(() -> r.gauge("x", "h", Map.of("le", "1"), () -> 1))
        .hasMessageContaining("label 'le' is reserved");
    assertThat(r.renderPrometheus()).isEmpty();
  }

  @Test
  void refusesOneNameWithTwoTypes() {
    MetricRegistry r = new MetricRegistry("m");
    r.gauge("queue_length", "h", Map.of("q", "a"), () -> 1);
    assertThatThrownBy(() -> r.histogram("queue_length", "h", Map.of("q", "b"), 1))
        .hasMessageContaining("metric queue_length: already registered as a gauge");
  }

  @Test
  void functionCountersRenderAsCountersAndSourcesJoinInNameOrder() {
    MetricRegistry r = new MetricRegistry("ts");
    r.counterFrom("holes_punched_total", "holes", () -> 4);
    r.doubleCounterFrom("flush_seconds_total", "flush time", () -> 0.25);
    r.addSource(() -> List.of(
        new MetricSource.Family("ratis_x_total", MetricType.COUNTER, "from Ratis",
            List.of(new MetricSource.Sample("", Map.of("group", "g1"), 2))),
        new MetricSource.Family("ratis_bad", MetricType.COUNTER, "dropped: no _total",
            List.of(new MetricSource.Sample("", Map.of(), 1)))));
    String text = r.renderPrometheus();
    assertThat(text).isEqualTo("""
        # HELP flush_seconds_total flush time
        # TYPE flush_seconds_total counter
        flush_seconds_total{server="ts"} 0.25
        # HELP holes_punched_total holes
        # TYPE holes_punched_total counter
        holes_punched_total{server="ts"} 4
        # HELP ratis_x_total from Ratis
        # TYPE ratis_x_total counter
        ratis_x_total{server="ts",group="g1"} 2.0
        """);
    assertThat(MetricLint.lint(text)).isEmpty();
  }
}
