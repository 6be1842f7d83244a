package io.nyala.common.metrics.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RatisRegistriesTest {
  private final RatisRegistries registries = new RatisRegistries();

  private static MetricRegistryInfo info(String prefix) {
    return new MetricRegistryInfo(prefix, "ratis", "server", "a test registry");
  }

  @Test
  void ratisLoadsOursAsItsOnlyImplementation() {
    assertThat(MetricRegistries.global()).isInstanceOf(RatisRegistries.class);
  }

  @Test
  void aRegistryGoesWithItsLastReference() {
    RatisMetricRegistry first = registries.create(info("p@group-1"));
    assertThat(registries.create(info("p@group-1"))).isSameAs(first);
    assertThat(registries.get(info("p@group-1"))).containsSame(first);

    assertThat(registries.remove(info("p@group-1"))).as("one reference left").isFalse();
    assertThat(registries.getMetricRegistries()).containsExactly(first);
    assertThat(registries.remove(info("p@group-1"))).as("the last one").isTrue();
    assertThat(registries.get(info("p@group-1"))).isEmpty();
    assertThat(registries.getMetricRegistryInfos()).isEmpty();
    assertThat(registries.remove(info("p@group-1"))).as("nothing left to remove").isFalse();
    assertThat(registries.create(info("p@group-1"))).as("a new one").isNotSameAs(first);
  }

  @Test
  void reportersSeeEachRegistryCreatedAndRemovedOnce() {
    List<String> seen = new ArrayList<>();
    registries.addReporterRegistration(
        r -> seen.add("+" + r.getMetricRegistryInfo().getPrefix()),
        r -> seen.add("-" + r.getMetricRegistryInfo().getPrefix()));
    registries.create(info("a"));
    registries.create(info("a"));
    registries.create(info("b"));
    registries.remove(info("a"));
    registries.remove(info("a"));
    assertThat(seen).containsExactly("+a", "+b", "-a");
  }

  @Test
  void thereIsNoJmxNorConsoleReporter() {
    assertThatThrownBy(registries::enableJmxReporter)
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("/metrics");
    assertThatThrownBy(() -> registries.enableConsoleReporter(TimeDuration.ONE_SECOND))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  /** As a dense node does: many divisions created and removed at once, from many threads. */
  @Test
  void concurrentCreatesAndRemovesLeaveNothingBehind() throws Exception {
    int threads = 4;
    int groups = 2_000;
    SimultaneousThreads.run(threads, thread -> {
      for (int g = 0; g < groups; g++) {
        registries.create(info("p@group-" + g)).counter("c").inc();
        registries.remove(info("p@group-" + g));
      }
    });
    assertThat(registries.getMetricRegistryInfos()).isEmpty();
  }
}
