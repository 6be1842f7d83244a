package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.metrics.MetricLint;
import io.nyala.common.metrics.MetricSource;
import io.nyala.common.metrics.ratis.RatisMetricSource;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every server's {@code /metrics}, Ratis' metrics included, follows Prometheus' naming rules
 * (docs/architecture.md, "Metrics"): checked by {@link MetricLint} and, where promtool is on
 * the PATH, by {@code promtool check metrics} too.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MetricsLintTest {
  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("k", Type.INT64).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));

  @TempDir
  Path tmp;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void everyServersMetricsPassTheLint() throws Exception {
    try (MiniCluster c = MiniCluster.builder().numTabletServers(3).dataRoot(tmp.resolve("c"))
            .build();
        NyalaClient client = c.newClient()) {
      writeRows(client);
      for (ServerInfo s : c.servers()) {
        String text = scrape(s);
        assertThat(MetricLint.lint(text)).as("lint of %s's /metrics", s.name()).isEmpty();
        assertThat(text).as(s.name()).contains("rpc_requests_total{server=\"" + s.name())
            .contains("# TYPE ratis_metrics_groups gauge")
            // Every Ratis family maps to a valid name: none was refused (and so not linted).
            .contains("ratis_metrics_families_refused{server=\"" + s.name() + "\"} 0");
        // Every server hosts a division (the catalog or a tablet), so Ratis' per-group
        // metrics are there with the server's own name and a group.
        assertThat(text.lines().filter(l -> l.startsWith("ratis_")
            && l.contains("server=\"" + s.name() + "\"") && l.contains("group=\"")))
            .as("%s's Ratis metrics with a group label", s.name()).isNotEmpty();
        promtoolIfPresent(s.name(), text);
      }
    }
  }

  @Test
  void ratisGroupsBeyondTheCapAreCountedNotRendered() throws Exception {
    try (MiniCluster c = MiniCluster.builder().numTabletServers(1).dataRoot(tmp.resolve("c"))
            .build();
        NyalaClient client = c.newClient()) {
      client.createTable("t", SCHEMA,
          new CreateTableOptions().addHashPartitions(List.of("k"), 3).setNumReplicas(1));
      String uuid = c.tabletServer(0).uuid();
      await().atMost(Duration.ofSeconds(30)).until(() ->
          gauge(new RatisMetricSource(uuid, 1).collect(), "ratis_metrics_groups") >= 3);
      List<MetricSource.Family> capped = new RatisMetricSource(uuid, 1).collect();
      long groups = gauge(capped, "ratis_metrics_groups");
      assertThat(gauge(capped, "ratis_metrics_groups_omitted")).isEqualTo(groups - 1);
      assertThat(capped.stream().flatMap(f -> f.samples().stream())
          .map(smp -> smp.labels().get("group")).filter(g -> g != null).distinct())
          .hasSize(1);
    }
  }

  private static long gauge(List<MetricSource.Family> families, String name) {
    return families.stream().filter(f -> f.name().equals(name))
        .mapToLong(f -> (long) f.samples().get(0).value()).findFirst().orElse(-1);
  }

  private static void writeRows(NyalaClient client) {
    NyalaTable table = client.createTable("t", SCHEMA,
        new CreateTableOptions().addHashPartitions(List.of("k"), 2).setNumReplicas(3));
    NyalaSession session = client.newSession();
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    for (int i = 0; i < 20; i++) {
      Operation op = table.newInsert();
      op.getRow().addLong("k", i).addString("v", "v" + i);
      session.apply(op);
    }
    for (OperationResponse r : session.flush()) {
      assertThat(r.hasRowError()).as("row error %s", r.getRowError()).isFalse();
    }
    session.close();
  }

  private String scrape(ServerInfo s) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.webUrl()
        + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s /metrics", s.name()).isEqualTo(200);
    return r.body();
  }

  /** Pipes the text through {@code promtool check metrics} when promtool is installed. */
  private static void promtoolIfPresent(String server, String text) throws Exception {
    Path promtool = promtool();
    if (promtool == null) {
      return;
    }
    Process p = new ProcessBuilder(promtool.toString(), "check", "metrics")
        .redirectErrorStream(true).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(text.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(out).as("promtool check metrics on %s", server).isBlank();
    assertThat(p.exitValue()).as("promtool's exit status on %s: %s", server, out).isZero();
  }

  private static Path promtool() {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir, "promtool");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }
}
