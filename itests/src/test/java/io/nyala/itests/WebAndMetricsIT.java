package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.ServerRole;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every server answers /healthz, /metrics in Prometheus text and a home page naming it, with a
 * nav bar; the master's pages lead to each table's replicas and on to their tablet servers. The
 * pages that list tablet ids need {@code --webserver_expose_tablet_ids}, so this cluster sets it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@NyalaCluster(masterFlags = "--webserver_expose_tablet_ids",
    tserverFlags = "--webserver_expose_tablet_ids")
class WebAndMetricsIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyServerServesHealthMetricsAndAHomePage(MiniCluster cluster, NyalaClient client)
      throws Exception {
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
          .contains("tablets{server=\"" + s.name() + "\"}");
      if (s.role() == ServerRole.TABLET_SERVER) {
        assertThat(m.body()).contains("tablets{server=\"" + s.name() + "\"} 2")
            .contains("method=\"Write\"").contains("method=\"Scan\"");
      } else {
        assertThat(m.body()).contains("method=\"CreateTable\"");
      }
      HttpResponse<String> home = get(s.webUrl() + "/");
      assertThat(home.statusCode()).isEqualTo(200);
      assertThat(home.body()).contains(s.name());
      assertThat(home.body()).contains(s.role() == ServerRole.MASTER ? "web" : "tablet");
      // The nav bar on every page: its Metrics and Health links answer.
      for (String label : List.of("Metrics", "Health")) {
        String href = link(home.body(), Pattern.quote(label));
        assertThat(get(s.webUrl() + href).statusCode()).as(s.name() + " " + href)
            .isEqualTo(200);
      }
    }
    followTheLinksFromTheMasterHomePage(cluster);
  }

  /**
   * Home, then Tables, then the table's page, then its tablets: every replica row names a tablet
   * server, links to its web UI (which answers and names it) and shows its role and state; each
   * tablet server's page links back to the master and to its own tablets. An unknown table id
   * is a 404 naming it.
   */
  private static void followTheLinksFromTheMasterHomePage(MiniCluster cluster) throws Exception {
    ServerInfo master = cluster.servers().stream().filter(s -> s.role() == ServerRole.MASTER)
        .findFirst().orElseThrow();
    Map<String, ServerInfo> tservers = cluster.servers().stream()
        .filter(s -> s.role() == ServerRole.TABLET_SERVER)
        .collect(Collectors.toMap(ServerInfo::name, s -> s));
    String home = get(master.webUrl() + "/").body();
    String tables = get(master.webUrl() + link(home, "Tables")).body();
    String tableUrl = master.webUrl() + link(get(master.webUrl() + link(tables, "web")).body(),
        "Its tablets and replicas");
    // Roles come with the tablet servers' heartbeats: wait for both tablets' leaders.
    await().atMost(Duration.ofSeconds(10)).until(() ->
        count(get(tableUrl).body(), ">LEADER<") == 2);
    HttpResponse<String> table = get(tableUrl);
    assertThat(table.statusCode()).isEqualTo(200);
    // Links between servers are scheme-relative (//host:port/): the browser keeps the page's.
    Matcher replica = Pattern.compile("<tr>(?:(?!</tr>).)*<a href=\"(//[^\"]+)\" "
        + "title=\"([0-9a-f]+)\">([^<]+)</a></td><td>(LEADER|FOLLOWER)</td><td>RUNNING</td></tr>")
        .matcher(table.body());
    int rows = 0;
    while (replica.find()) {
      rows++;
      ServerInfo ts = tservers.get(replica.group(3));
      assertThat(ts).as("replica row names a tablet server: " + replica.group()).isNotNull();
      assertThat(replica.group(2)).isEqualTo(ts.uuid());
      assertThat("http:" + replica.group(1)).isEqualTo(ts.webUrl() + "/");
      HttpResponse<String> tsPage = get("http:" + replica.group(1));
      assertThat(tsPage.statusCode()).isEqualTo(200);
      assertThat(tsPage.body()).contains(ts.name())
          .contains("<a href=\"" + master.webUrl().substring("http:".length()) + "/\">");
      // 2 tablets x 3 replicas on 3 tablet servers: each lists both, by table name and state.
      String tsTablets = get(ts.webUrl() + link(tsPage.body(), "Tablets")).body();
      assertThat(count(tsTablets, "<td>web</td><td>")).as(tsTablets).isEqualTo(2);
      assertThat(count(tsTablets, "<td>RUNNING</td>")).as(tsTablets).isEqualTo(2);
    }
    assertThat(rows).as("2 tablets x 3 replicas in\n" + table.body()).isEqualTo(6);

    HttpResponse<String> nope = get(master.webUrl() + "/table?id=nope");
    assertThat(nope.statusCode()).isEqualTo(404);
    assertThat(nope.body()).contains("'nope'");
  }

  /** The href of the link whose text matches {@code text} (HTML-unescaped). */
  private static String link(String html, String text) {
    Matcher m = Pattern.compile("<a href=\"([^\"]+)\"[^>]*>" + text + "</a>").matcher(html);
    assertThat(m.find()).as("a link '" + text + "' in\n" + html).isTrue();
    return m.group(1).replace("&amp;", "&");
  }

  private static int count(String s, String part) {
    return s.split(Pattern.quote(part), -1).length - 1;
  }
}
