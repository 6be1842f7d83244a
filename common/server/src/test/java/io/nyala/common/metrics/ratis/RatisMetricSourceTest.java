package io.nyala.common.metrics.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.metrics.MetricLint;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.metrics.MetricSource.Family;
import io.nyala.common.metrics.MetricSource.Sample;
import io.nyala.common.metrics.MetricType;
import io.nyala.common.net.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What a real Ratis division's metrics look like on {@code /metrics}, through our registries. */
@Timeout(60)
class RatisMetricSourceTest {
  private static final int WRITES = 5;

  @TempDir
  Path dir;

  @Test
  void aDivisionsTimersCountersAndGaugesAreRenderedByTheNamingRules() throws Exception {
    String peer = UUID.randomUUID().toString().replace("-", "");
    int port = TestPorts.freePort();
    RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), RaftPeer.newBuilder()
        .setId(RaftPeerId.valueOf(peer)).setAddress("127.0.0.1:" + port).build());
    RaftProperties props = RaftSettings.forServer(dir.toFile(),
        new HostPort("127.0.0.1", port), 150, 300, Map.of());
    RatisMetricSource source = new RatisMetricSource(peer);
    try (RaftServer server = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(peer))
        .setProperties(props).setGroup(group).setStateMachine(new BaseStateMachine())
        .setOption(RaftStorage.StartupOption.FORMAT).build()) {
      server.start();
      await().atMost(Duration.ofSeconds(30))
          .until(() -> server.getDivision(group.getGroupId()).getInfo().isLeader());
      try (RaftClient client = RaftClient.newBuilder().setProperties(props)
          .setRaftGroup(group).build()) {
        for (int i = 0; i < WRITES; i++) {
          assertThat(client.io().send(Message.valueOf("w" + i)).isSuccess()).isTrue();
        }
      }
      List<Family> families = source.collect();

      Family writes = family(families, "ratis_server_client_write_request_seconds").orElseThrow();
      assertThat(writes.type()).isEqualTo(MetricType.SUMMARY);
      assertThat(value(writes, "_count")).isEqualTo(WRITES);
      assertThat(value(writes, "_sum")).as("seconds in %s", writes).isPositive()
          .isLessThan(30);
      assertThat(writes.samples()).extracting(Sample::labels)
          .allSatisfy(l -> assertThat(l).containsEntry("group", group.getGroupId().toString())
              .doesNotContainKey("quantile"));
      Family max = family(families, "ratis_server_client_write_request_max_seconds")
          .orElseThrow();
      assertThat(max.type()).isEqualTo(MetricType.GAUGE);
      assertThat(max.samples().get(0).value()).isPositive()
          .isLessThanOrEqualTo(value(writes, "_sum"));
      assertThat(families).filteredOn(f -> f.type() == MetricType.COUNTER).isNotEmpty()
          .allSatisfy(f -> assertThat(f.name()).endsWith("_total"));
      assertThat(families).filteredOn(f -> f.type() == MetricType.GAUGE
          && f.name().startsWith("ratis_server_") && !f.name().endsWith("_max_seconds"))
          .as("Ratis' gauges").isNotEmpty();
      assertThat(value(family(families, "ratis_metrics_groups").orElseThrow(), "")).isEqualTo(1);
      assertThat(value(family(families, "ratis_metrics_families_refused").orElseThrow(), ""))
          .isZero();

      MetricRegistry registry = new MetricRegistry("s");
      registry.addSource(source);
      assertThat(MetricLint.lint(registry.renderPrometheus())).isEmpty();
    }
    await().atMost(Duration.ofSeconds(10)).pollInterval(50, TimeUnit.MILLISECONDS)
        .untilAsserted(() -> assertThat(value(family(source.collect(), "ratis_metrics_groups")
            .orElseThrow(), "")).as("groups once the server is closed").isZero());
  }

  private static Optional<Family> family(List<Family> families, String name) {
    return families.stream().filter(f -> f.name().equals(name)).findFirst();
  }

  private static double value(Family f, String suffix) {
    return f.samples().stream().filter(s -> s.suffix().equals(suffix)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + f.name() + suffix)).value();
  }
}
