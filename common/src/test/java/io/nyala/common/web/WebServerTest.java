package io.nyala.common.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import io.nyala.common.metrics.MetricRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A page that fails answers 500 with a generic message and an id to find the failure in the
 * server's log; the exception's text (paths, keys, values) never reaches the browser.
 */
@Timeout(20)
class WebServerTest {
  @Test
  void aFailingPageShowsAnIdNotTheExceptionText() throws Exception {
    try (WebServer web = new WebServer("ts-web", new HostPort("127.0.0.1", 0),
        new MetricRegistry("ts-web"), () -> "home")) {
      web.addPage("/boom", "Boom", () -> {
        throw new IllegalStateException("secret row key 'alice' in /data/3f2e.metadata");
      });
      web.start();
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + web.address().getPort() + "/boom")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(r.body()).doesNotContain("secret").doesNotContain("alice")
          .doesNotContain("3f2e").doesNotContain("IllegalStateException")
          .containsPattern("error id [0-9a-f]{8}");
    }
  }
}
