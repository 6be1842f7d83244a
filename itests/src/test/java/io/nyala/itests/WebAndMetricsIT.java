package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.CreateTableOptions;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.ServerRole;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every server answers /healthz, /metrics in Prometheus text and a home page naming it. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class WebAndMetricsIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyServerServesHealthMetricsAndAHomePage() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().numTabletServers(3).build()) {
      var client = cluster.newClient();
      client.createTable("web", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(3));
      TestRows.scanAll(client, client.openTable("web"));
      for (ServerInfo s : cluster.servers()) {
        assertThat(get(s.webUrl() + "/healthz").statusCode()).as(s.name()).isEqualTo(200);
        HttpResponse<String> m = get(s.webUrl() + "/metrics");
        assertThat(m.statusCode()).isEqualTo(200);
        assertThat(m.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        assertThat(m.body()).as(s.name() + " metrics")
            .contains("# TYPE rpc_requests_total counter")
            .contains("rpc_requests_total{server=\"" + s.name() + "\"")
            .contains("tablets_total{server=\"" + s.name() + "\"}");
        if (s.role() == ServerRole.TABLET_SERVER) {
          assertThat(m.body()).contains("tablets_total{server=\"" + s.name() + "\"} 2")
              .contains("method=\"Write\"").contains("method=\"Scan\"");
        } else {
          assertThat(m.body()).contains("method=\"CreateTable\"");
        }
        HttpResponse<String> home = get(s.webUrl() + "/");
        assertThat(home.statusCode()).isEqualTo(200);
        assertThat(home.body()).contains(s.name());
        assertThat(home.body()).contains(s.role() == ServerRole.MASTER ? "web" : "tablet");
      }
    }
  }
}
