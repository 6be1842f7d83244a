package io.nyala.common.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.HostPort;
import io.nyala.common.metrics.MetricRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A page that fails answers 500 with a generic message and an id to find the failure in the
 * server's log; the exception's text (paths, keys, values) never reaches the browser. Bad input
 * is a 400 or 404 naming it, under the same nav bar as every page.
 */
@Timeout(20)
class WebServerTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> get(WebServer web, String pathAndQuery) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + web.address().getPort() + pathAndQuery)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aTabletIdPageAnswers403NamingTheFlagUnlessExposed() throws Exception {
    try (WebServer web = new WebServer("ts-web", new HostPort("127.0.0.1", 0),
        new MetricRegistry("ts-web"), () -> "home")) {
      web.addTabletIdPage("/hidden", "Hidden", false, req -> "<p>tablet 3f2e</p>");
      web.addTabletIdPage("/shown", "Shown", true, req -> "<p>tablet 3f2e</p>");
      web.start();
      for (String path : List.of("/hidden", "/hidden?id=x", "/hidden/below")) {
        HttpResponse<String> r = get(web, path);
        assertThat(r.statusCode()).as(path).isEqualTo(403);
        assertThat(r.body()).as(path).doesNotContain("3f2e")
            .isEqualTo("/hidden lists tablet ids, which this server's web UI does not show "
                + "without authentication; start the server with "
                + "--webserver_expose_tablet_ids=true to serve it\n");
      }
      HttpResponse<String> shown = get(web, "/shown");
      assertThat(shown.statusCode()).isEqualTo(200);
      assertThat(shown.body()).contains("tablet 3f2e");
    }
  }

  @Test
  void aFailingPageShowsAnIdNotTheExceptionText() throws Exception {
    try (WebServer web = new WebServer("ts-web", new HostPort("127.0.0.1", 0),
        new MetricRegistry("ts-web"), () -> "home")) {
      web.addPage("/boom", "Boom", () -> {
        throw new IllegalStateException("secret row key 'alice' in /data/3f2e.metadata");
      });
      web.start();
      HttpResponse<String> r = get(web, "/boom");
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(r.body()).doesNotContain("secret").doesNotContain("alice")
          .doesNotContain("3f2e").doesNotContain("IllegalStateException")
          .containsPattern("error id [0-9a-f]{8}");
    }
  }

  @Test
  void everyPageHasTheNavBarAndBadParametersAreNamed() throws Exception {
    try (WebServer web = new WebServer("m-1", "master", new HostPort("127.0.0.1", 0),
        new MetricRegistry("m-1"), () -> "<p>home</p>")) {
      web.addNavLink("/things", "Things");
      web.addPage("/thing", "Thing", req -> {
        String id = req.required("id");
        if (!id.equals("a")) {
          throw WebServer.HttpError.notFound("no thing " + WebServer.HttpError.shown(id));
        }
        return "<p>thing a</p>";
      });
      web.start();
      String nav = "<b>m-1</b> <span class=\"role\">master</span> | <a href=\"/\">Home</a> | "
          + "<a href=\"/metrics\">Metrics</a> | <a href=\"/healthz\">Health</a> | "
          + "<a href=\"/things\">Things</a>";
      HttpResponse<String> home = get(web, "/");
      assertThat(home.statusCode()).isEqualTo(200);
      assertThat(home.body()).contains(nav).contains("<p>home</p>");
      assertThat(get(web, "/thing?id=a").body()).contains(nav).contains("thing a");

      HttpResponse<String> unknown = get(web, "/thing?id=%3Cscript%3E");
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(unknown.body()).contains(nav).contains("no thing '&lt;script&gt;'")
          .doesNotContain("<script>");
      HttpResponse<String> missing = get(web, "/thing");
      assertThat(missing.statusCode()).isEqualTo(400);
      assertThat(missing.body()).contains("missing query parameter 'id'");
      // Which java.net.URI refuses to build: sent by hand, the JDK server refuses it.
      assertThat(rawStatusLine(web, "/thing?id=%zz")).contains(" 400 ");
      HttpResponse<String> below = get(web, "/thing/x");
      assertThat(below.statusCode()).isEqualTo(404);
      assertThat(below.body()).contains(nav).contains("no page '/thing/x'");
      assertThat(get(web, "/nope").statusCode()).isEqualTo(404);
    }
  }

  private static String rawStatusLine(WebServer web, String target) throws Exception {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", web.address().getPort())) {
      s.setSoTimeout(5000);
      s.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\n"
          + "Connection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      return new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(),
          java.nio.charset.StandardCharsets.US_ASCII)).readLine();
    }
  }

  @Test
  void queryParameters() {
    assertThat(WebServer.params("id=a+b&x=%26&id=second&flag&&")).containsExactly(
        java.util.Map.entry("id", "a b"), java.util.Map.entry("x", "&"),
        java.util.Map.entry("flag", ""));
    assertThat(WebServer.params(null)).isEmpty();
    assertThatThrownBy(() -> WebServer.params("id=%zz"))
        .isInstanceOfSatisfying(WebServer.HttpError.class, e -> assertThat(e.status())
            .isEqualTo(400))
        .hasMessage("bad URL encoding in query parameter 'id=%zz'");
  }
}
