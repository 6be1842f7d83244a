package io.nyala.common.metrics.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.Timekeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RatisRegistryTest {
  private final RatisRegistry registry = new RatisRegistry(
      new MetricRegistryInfo("p@group-1", "ratis", "server", "a test registry"));

  @Test
  void countersCountUpAndDown() {
    LongCounter c = registry.counter("numRequests");
    c.inc();
    c.inc(5);
    c.dec();
    assertThat(c.getCount()).isEqualTo(5);
    assertThat(registry.counter("numRequests")).as("the same name, the same counter")
        .isSameAs(c);
  }

  @Test
  void timersSumTheirTimesAndKeepTheMaxUntilRead() {
    RatisTimer t = (RatisTimer) registry.timer("flushTime");
    t.record(3_000);
    t.record(7_000);
    t.record(-1); // a clock gone back: dropped
    assertThat(t.read()).isEqualTo(new RatisTimer.Reading(2, 10_000, 7_000));
    assertThat(t.read()).as("the max resets on read, the totals do not")
        .isEqualTo(new RatisTimer.Reading(2, 10_000, 0));
  }

  @Test
  void aContextRecordsTheTimeItReturns() {
    Timekeeper t = registry.timer("syncTime");
    long elapsed = t.time().stop();
    RatisTimer.Reading r = ((RatisTimer) t).read();
    assertThat(r.count()).isEqualTo(1);
    assertThat(r.sumNanos()).isEqualTo(elapsed);
    assertThat(r.maxNanos()).isEqualTo(elapsed);
  }

  @Test
  void gaugesKeepTheirFirstSupplierAndAreReadWhenAsked() {
    AtomicLong value = new AtomicLong(4);
    registry.<Long>gauge("lastIndex", () -> value::get);
    registry.<Long>gauge("lastIndex", () -> () -> -1L);
    value.set(9);
    assertThat(metrics()).containsOnlyKeys("lastIndex");
    assertThat(((RatisMetric.Gauge) metrics().get("lastIndex")).value().get()).isEqualTo(9L);
  }

  @Test
  void aNameHoldsOneKindOfMetricUntilRemoved() {
    registry.counter("x");
    assertThatThrownBy(() -> registry.timer("x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("x").hasMessageContaining("p@group-1");
    assertThat(registry.remove("x")).isTrue();
    assertThat(registry.remove("x")).isFalse();
    assertThat(registry.timer("x")).isInstanceOf(RatisTimer.class);
  }

  /** Every update of every thread is counted: nothing is sampled or lost. */
  @Test
  void concurrentUpdatesAreCountedExactly() throws Exception {
    int threads = 4;
    int perThread = 200_000;
    LongCounter c = registry.counter("appends");
    RatisTimer t = (RatisTimer) registry.timer("appendTime");
    SimultaneousThreads.run(threads, thread -> {
      for (int n = 0; n < perThread; n++) {
        c.inc();
        t.record(thread + 1);
      }
    });
    assertThat(c.getCount()).isEqualTo((long) threads * perThread);
    // Thread i records i + 1 ns each time: 1 + 2 + 3 + 4 = 10 ns per round of all four.
    assertThat(t.read()).isEqualTo(new RatisTimer.Reading((long) threads * perThread,
        10L * perThread, threads));
  }

  private Map<String, RatisMetric> metrics() {
    Map<String, RatisMetric> out = new HashMap<>();
    registry.forEach(out::put);
    return out;
  }
}
