package io.nyala.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MetricLintTest {
  @Test
  void cleanTextHasNoProblems() {
    assertThat(MetricLint.lint("""
        # HELP rpc_requests_total calls
        # TYPE rpc_requests_total counter
        rpc_requests_total{server="a",method="Write"} 3
        # HELP wake_seconds wakes
        # TYPE wake_seconds histogram
        wake_seconds_bucket{server="a",le="0.1"} 1
        wake_seconds_bucket{server="a",le="+Inf"} 2
        wake_seconds_sum{server="a"} 0.5
        wake_seconds_count{server="a"} 2
        # HELP ratis_sync_seconds syncs
        # TYPE ratis_sync_seconds summary
        ratis_sync_seconds{server="a",quantile="0.5"} 1.0E-4
        ratis_sync_seconds_count{server="a"} 9
        """)).isEmpty();
  }

  @Test
  void findsWhatPromtoolFinds() {
    List<String> p = MetricLint.lint("""
        # HELP cache_hits hits
        # TYPE cache_hits counter
        cache_hits 1
        # HELP holes_total holes
        # TYPE holes_total gauge
        holes_total 2
        # HELP wake_latency_ms wakes
        # TYPE wake_latency_ms gauge
        wake_latency_ms 3
        # TYPE no_help gauge
        no_help 4
        untyped_sample 5
        # HELP fooBar camel
        # TYPE fooBar gauge
        fooBar{bad-label="x"} 6
        """);
    assertThat(String.join("\n", p))
        .contains("cache_hits: is a counter, so its name must end in _total")
        .contains("holes_total: is a gauge, so its name must not end in _total")
        .contains("wake_latency_ms: abbreviates a unit")
        .contains("no_help: no HELP line")
        .contains("untyped_sample: sample without a TYPE line")
        .contains("fooBar: is not snake_case")
        .contains("labels do not parse");
  }

  @Test
  void findsTypeAfterSamplesSplitFamiliesAndBadValues() {
    List<String> p = MetricLint.lint("""
        # HELP a_total a
        a_total 1
        # TYPE a_total counter
        # HELP b b
        # TYPE b gauge
        b{x="1"} one
        b{x="1"} 2
        # HELP h_seconds h
        # TYPE h_seconds histogram
        h_seconds_bucket 1
        # HELP c c
        # TYPE c gauge
        b{x="2"} 3
        """);
    assertThat(String.join("\n", p))
        .contains("a_total: sample without a TYPE line")
        .contains("a_total: TYPE after its samples")
        .contains("b: value 'one' is not a number")
        .contains("b: duplicate series")
        .contains("h_seconds_bucket: histogram bucket without an 'le' label")
        .contains("b: sample without a TYPE line before it in its family");
  }
}
