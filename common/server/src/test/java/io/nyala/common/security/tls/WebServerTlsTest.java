package io.nyala.common.security.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.HostPort;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.server.ServerOptions;
import io.nyala.common.web.WebServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --webserver_tls}: the web server presents the server's RPC certificate over HTTPS to a
 * client trusting the cluster's CA, and serves neither plain HTTP nor a client that does not
 * trust that CA; asking for it without RPC TLS refuses the start, naming the flags.
 */
@Timeout(60)
class WebServerTlsTest {
  @TempDir
  Path dir;

  @Test
  void servesHttpsOnlyWithTheServersCertificate() throws Exception {
    Path ca = CertFiles.createCa(dir);
    CertFiles.ServerFiles s = CertFiles.createServer(dir, "ts-1", List.of("127.0.0.1"));
    WireTls tls = WireTls.fromFlags("required", s.certFile().toString(),
        s.keyFile().toString(), ca.toString());
    ServerOptions o = new ServerOptions();
    o.webserverTls = true;
    try (WebServer web = new WebServer("ts-1", "tablet server", new HostPort("127.0.0.1", 0),
        new MetricRegistry("ts-1"), () -> "<p>home</p>", o.webTls(tls))) {
      web.start();
      int port = web.address().getPort();
      assertThat(web.scheme()).isEqualTo("https");

      HttpClient trusting = HttpClient.newBuilder().sslContext(trusting(ca))
          .connectTimeout(Duration.ofSeconds(10)).build();
      HttpResponse<String> ok = trusting.send(request("https", port, "/healthz"),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("OK\n");
      assertThat(trusting.send(request("https", port, "/"), HttpResponse.BodyHandlers.ofString())
          .body()).contains("<p>home</p>");

      HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      assertThatThrownBy(() -> plain.send(request("http", port, "/healthz"),
          HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
      // The JDK's default trust store does not hold the cluster's CA.
      assertThatThrownBy(() -> plain.send(request("https", port, "/healthz"),
          HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class)
          .hasStackTraceContaining("PKIX");
    }
  }

  @Test
  void withoutRpcTlsTheFlagRefusesTheStartNamingWhatIsMissing() {
    ServerOptions o = new ServerOptions();
    o.webserverTls = true;
    assertThatThrownBy(() -> o.webTls(WireTls.plaintext()))
        .hasMessageContaining("--webserver_tls")
        .hasMessageContaining("--tls_cert_file, --tls_key_file and --trusted_ca_file")
        .hasMessageContaining("--rpc_encryption=optional");
    o.webserverTls = false;
    assertThat(o.webTls(WireTls.plaintext())).isNull();
  }

  private static HttpRequest request(String scheme, int port, String path) {
    return HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build();
  }

  private static SSLContext trusting(Path caFile) throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (InputStream in = Files.newInputStream(caFile)) {
      ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
          .generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(
        TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
