package io.nyala.common.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.nyala.common.HostPort;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's HTTP listener: {@code /healthz}, {@code /metrics} (Prometheus text) and an HTML
 * home page; servers add pages with {@link #addPage}. Built on the JDK's HTTP server: it needs no
 * dependency and serves a few requests a second.
 */
public final class WebServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WebServer.class);
  private static final java.util.Random ERROR_IDS = new java.security.SecureRandom();

  private final HttpServer server;
  private final ExecutorService executor;
  private final String serverName;

  public WebServer(String serverName, HostPort bind, MetricRegistry metrics,
      Supplier<String> homePageBody) throws IOException {
    this.serverName = serverName;
    this.server = HttpServer.create(new InetSocketAddress(bind.host(), bind.port()), 16);
    this.executor = Executors.newFixedThreadPool(2, LogContext.threadFactory(serverName, "http"));
    server.setExecutor(executor);
    server.createContext("/healthz", ex -> send(ex, 200, "text/plain", "OK\n"));
    server.createContext("/metrics", ex -> send(ex, 200,
        "text/plain; version=0.0.4; charset=utf-8", metrics.renderPrometheus()));
    addPage("/", "Home", homePageBody);
  }

  /** Serves an HTML page whose body the supplier renders on each request. */
  public void addPage(String path, String title, Supplier<String> body) {
    server.createContext(path, ex -> {
      if (path.equals("/") && !ex.getRequestURI().getPath().equals("/")) {
        send(ex, 404, "text/plain", "not found: " + ex.getRequestURI().getPath() + "\n");
        return;
      }
      String html;
      try {
        html = body.get();
      } catch (RuntimeException e) {
        // The exception's text may name files, keys or values: it goes to the log only, and
        // the page gives the id that finds it there.
        String id = String.format("%08x", ERROR_IDS.nextInt());
        LOG.warn("page {} failed (error id {})", path, id, e);
        send(ex, 500, "text/plain", "internal error rendering " + path + " (error id " + id
            + "); the server's log has the details\n");
        return;
      }
      send(ex, 200, "text/html; charset=utf-8", "<!DOCTYPE html><html><head><title>"
          + Html.escape(serverName + " - " + title) + "</title><style>"
          + "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
          + "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style></head><body>"
          + html + "</body></html>");
    });
  }

  public void start() {
    server.start();
  }

  /** The bound address (the port is real even when 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
