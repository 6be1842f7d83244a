package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.metrics.ratis.RatisRegistries;
import io.nyala.common.row.RowOpType;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.management.ObjectName;
import org.apache.ratis.metrics.MetricRegistries;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ratis' metrics stay out of JMX: Ratis' default metrics implementation registers every metric
 * of every Raft group as an MBean under the JVM's one MBean server lock, which made creating,
 * waking and hibernating hundreds of groups queue on that lock (docs/dense-nodes.md). Nyala's
 * own implementation ({@code common.metrics.ratis.RatisRegistries}) has no JMX at all; this
 * checks that it is the one a real tablet server's Ratis uses.
 */
@Timeout(60)
class RaftMetricsJmxTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  @Test
  void aServerWithATabletRegistersNoRatisMetricAsMBean() {
    ts = TserverFixture.start(TserverFixture.options(dir.resolve("ts"), TserverFixture.freePort()));
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(fx.write(ts, TserverFixture.inserts(tablet, 0, 10,
        RowOpType.INSERT)).hasError()).isFalse();
    assertThat(MetricRegistries.global()).isInstanceOf(RatisRegistries.class);
    // Ratis registers one bean per division for its own admin view; no metric is one.
    assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(null, null).stream()
        .map(ObjectName::toString)
        .filter(n -> n.toLowerCase(Locale.ROOT).contains("ratis")))
        .allMatch(n -> n.startsWith("Ratis:service=RaftServer"));
  }
}
