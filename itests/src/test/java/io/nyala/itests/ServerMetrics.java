package io.nyala.itests;

import io.nyala.minicluster.ServerInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a server's metrics from its {@code /metrics} page, so it works for server processes. */
final class ServerMetrics {
  private ServerMetrics() {}

  /**
   * The first series of {@code name} (any labels) that {@code server} exports; -1 if it does not
   * answer or has no such series.
   */
  static double value(ServerInfo server, String name) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create(server.webUrl() + "/metrics"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
      Matcher m = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$")
          .matcher(r.body());
      return m.find() ? Double.parseDouble(m.group(1)) : -1;
    } catch (Exception e) {
      return -1;
    }
  }
}
