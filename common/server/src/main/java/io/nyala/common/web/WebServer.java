package io.nyala.common.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.nyala.common.HostPort;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's HTTP listener: {@code /healthz}, {@code /metrics} (Prometheus text) and HTML
 * pages; servers add pages with {@link #addPage} and links to them with {@link #addNavLink}.
 * Every HTML page, error pages included, has the same chrome: a title and the nav bar naming
 * the server and its role. Built on the JDK's HTTP server: it needs no dependency and serves a
 * few requests a second. Given a TLS context it serves HTTPS only ({@code --webserver_tls}).
 */
public final class WebServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WebServer.class);
  private static final java.util.Random ERROR_IDS = new java.security.SecureRandom();
  /** The flag that lets pages list tablet ids (see {@link #addTabletIdPage}). */
  public static final String EXPOSE_TABLET_IDS_FLAG = "--webserver_expose_tablet_ids";
  /** A parameter value longer than this is cut in error messages. */
  private static final int MAX_SHOWN_VALUE = 80;

  /** Renders one page for one request; throws {@link HttpError} for a 4xx answer. */
  @FunctionalInterface
  public interface Page {
    String render(Request request);
  }

  /** What a page sees of its request: the query parameters (decoded; the first of repeats). */
  public record Request(String path, Map<String, String> params) {
    /** The parameter's value, or null if absent. */
    public String param(String name) {
      return params.get(name);
    }

    /** The parameter's value; a 400 naming it if it is absent or empty. */
    public String required(String name) {
      String v = params.get(name);
      if (v == null || v.isEmpty()) {
        throw HttpError.badRequest("missing query parameter '" + name + "'");
      }
      return v;
    }
  }

  /** A 4xx answer: the page shows the one-line message, escaped, under the nav bar. */
  public static final class HttpError extends RuntimeException {
    private final int status;

    public HttpError(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }

    public int status() {
      return status;
    }

    public static HttpError badRequest(String message) {
      return new HttpError(400, message);
    }

    public static HttpError notFound(String message) {
      return new HttpError(404, message);
    }

    /** A parameter value for a message: quoted, cut if long. */
    public static String shown(String value) {
      String v = value.length() > MAX_SHOWN_VALUE
          ? value.substring(0, MAX_SHOWN_VALUE) + "..." : value;
      return "'" + v + "'";
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final String serverName;
  private final String role;
  private final List<Html.NavLink> navLinks = new CopyOnWriteArrayList<>(List.of(
      new Html.NavLink("/", "Home"), new Html.NavLink("/metrics", "Metrics"),
      new Html.NavLink("/healthz", "Health")));

  public WebServer(String serverName, HostPort bind, MetricRegistry metrics,
      Supplier<String> homePageBody) throws IOException {
    this(serverName, "", bind, metrics, homePageBody);
  }

  /** {@code role} (e.g. "master") is shown next to the server's name on every page. */
  public WebServer(String serverName, String role, HostPort bind, MetricRegistry metrics,
      Supplier<String> homePageBody) throws IOException {
    this(serverName, role, bind, metrics, homePageBody, null);
  }

  /**
   * A web server that speaks HTTPS only when {@code tls} is given, plain HTTP when it is null.
   *
   * @param role shown next to the server's name on every page (e.g. "master")
   * @param tls the context presenting the server's certificate, or null for HTTP
   */
  public WebServer(String serverName, String role, HostPort bind, MetricRegistry metrics,
      Supplier<String> homePageBody, SSLContext tls) throws IOException {
    this.serverName = serverName;
    this.role = role;
    InetSocketAddress address = new InetSocketAddress(bind.host(), bind.port());
    if (tls == null) {
      this.server = HttpServer.create(address, 16);
    } else {
      HttpsServer https = HttpsServer.create(address, 16);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      this.server = https;
    }
    this.executor = Executors.newFixedThreadPool(2, LogContext.threadFactory(serverName, "http"));
    server.setExecutor(executor);
    server.createContext("/healthz", ex -> send(ex, 200, "text/plain", "OK\n"));
    server.createContext("/metrics", ex -> send(ex, 200,
        "text/plain; version=0.0.4; charset=utf-8", metrics.renderPrometheus()));
    addPage("/", "Home", homePageBody);
  }

  /** Adds a link to the nav bar of every page (after Home, Metrics and Health). */
  public void addNavLink(String path, String label) {
    navLinks.add(new Html.NavLink(path, label));
  }

  /** Serves an HTML page whose body the supplier renders on each request. */
  public void addPage(String path, String title, Supplier<String> body) {
    addPage(path, title, req -> body.get());
  }

  /**
   * Serves an HTML page rendered on each request from its query parameters. A path below
   * {@code path} answers 404; an {@link HttpError} answers its status and message; any other
   * failure a 500 with an id to find it in the log.
   */
  public void addPage(String path, String title, Page page) {
    server.createContext(path, ex -> {
      String reqPath = ex.getRequestURI().getPath();
      if (!reqPath.equals(path)) {
        sendPage(ex, 404, "Not found", error("no page " + HttpError.shown(reqPath)
            + " on this server"));
        return;
      }
      String html;
      try {
        html = page.render(new Request(reqPath, params(ex.getRequestURI().getRawQuery())));
      } catch (HttpError e) {
        sendPage(ex, e.status(), title, error(e.getMessage()));
        return;
      } catch (RuntimeException e) {
        // The exception's text may name files, keys or values: it goes to the log only, and
        // the page gives the id that finds it there.
        String id = String.format("%08x", ERROR_IDS.nextInt());
        LOG.warn("page {} failed (error id {})", path, id, e);
        send(ex, 500, "text/plain", "internal error rendering " + path + " (error id " + id
            + "); the server's log has the details\n");
        return;
      }
      sendPage(ex, 200, title, html);
    });
  }

  /**
   * Serves a page that lists tablet ids, which the web UI (no authentication yet) shows only
   * when the server runs with {@value #EXPOSE_TABLET_IDS_FLAG}: {@code exposed} adds it as
   * {@link #addPage(String, String, Page)} does; otherwise every request below {@code path}
   * answers 403 with one line naming that flag.
   */
  public void addTabletIdPage(String path, String title, boolean exposed, Page page) {
    if (exposed) {
      addPage(path, title, page);
      return;
    }
    server.createContext(path, ex -> send(ex, 403, "text/plain; charset=utf-8",
        tabletIdsHidden(path) + "\n"));
  }

  /** The one line a hidden tablet id page answers. */
  public static String tabletIdsHidden(String path) {
    return path + " lists tablet ids, which this server's web UI does not show without "
        + "authentication; start the server with " + EXPOSE_TABLET_IDS_FLAG + "=true to serve it";
  }

  /** The query string's parameters; a 400 if it is not valid URL encoding. */
  static Map<String, String> params(String rawQuery) {
    Map<String, String> out = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        out.putIfAbsent(URLDecoder.decode(k, StandardCharsets.UTF_8),
            URLDecoder.decode(v, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw HttpError.badRequest("bad URL encoding in query parameter " + HttpError.shown(pair));
      }
    }
    return out;
  }

  private static String error(String message) {
    return "<p class=\"error\">" + Html.escape(message.replace('\n', ' ')) + "</p>";
  }

  /** The page around a body: title, style and nav bar. */
  String chrome(String title, String body) {
    List<Html.NavLink> links = new ArrayList<>(navLinks);
    return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>"
        + Html.escape(serverName + " - " + title) + "</title><style>"
        + "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        + "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        + "nav{margin-bottom:1em;padding:4px 0;border-bottom:1px solid #ccc}"
        + ".role{color:#666}.error{color:#a00}</style></head><body>"
        + Html.nav(serverName, role, links) + body + "</body></html>";
  }

  private void sendPage(HttpExchange ex, int code, String title, String body)
      throws IOException {
    send(ex, code, "text/html; charset=utf-8", chrome(title, body));
  }

  public void start() {
    server.start();
  }

  /** @return "https" when this server speaks TLS, else "http" */
  public String scheme() {
    return server instanceof HttpsServer ? "https" : "http";
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
