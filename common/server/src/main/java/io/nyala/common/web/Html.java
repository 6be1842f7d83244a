package io.nyala.common.web;

import io.nyala.common.HostPort;
import io.nyala.common.proto.PartitionPB;
import java.util.HexFormat;
import java.util.List;

/** Tiny helpers for the servers' status pages: escaping, tables, links and the nav bar. */
public final class Html {
  private Html() {}

  /** One entry of the navigation bar: a path on this server and its label. */
  public record NavLink(String path, String label) {}

  public static String escape(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  /** A table with a header row; cells are escaped. */
  public static String table(List<String> header, List<List<String>> rows) {
    return rawTable(header, rows.stream()
        .map(r -> r.stream().map(Html::escape).toList()).toList());
  }

  /**
   * A table whose header is escaped and whose cells are HTML already (built with
   * {@link #escape} and {@link #link}): for cells that hold links.
   */
  public static String rawTable(List<String> header, List<List<String>> htmlRows) {
    StringBuilder sb = new StringBuilder("<table><tr>");
    for (String h : header) {
      sb.append("<th>").append(escape(h)).append("</th>");
    }
    sb.append("</tr>");
    for (List<String> r : htmlRows) {
      sb.append("<tr>");
      for (String c : r) {
        sb.append("<td>").append(c).append("</td>");
      }
      sb.append("</tr>");
    }
    return sb.append("</table>").toString();
  }

  /** {@code <a href=...>text</a>}, both escaped. */
  public static String link(String href, String text) {
    return "<a href=\"" + escape(href) + "\">" + escape(text) + "</a>";
  }

  /** A link with a tooltip (e.g. a server's uuid behind its name). */
  public static String link(String href, String text, String title) {
    return "<a href=\"" + escape(href) + "\" title=\"" + escape(title) + "\">" + escape(text)
        + "</a>";
  }

  /** Text with a tooltip, for what has no page to link to. */
  public static String titled(String text, String title) {
    return "<span title=\"" + escape(title) + "\">" + escape(text) + "</span>";
  }

  /**
   * The root of a server's web UI as a link, or null when it has none (port 0 or no host).
   * Scheme-relative ({@code //host:port/}): the browser keeps the page's own scheme, since the
   * servers of a cluster serve their web UI all over HTTP or all over HTTPS
   * ({@code --webserver_tls}).
   */
  public static String webUrl(HostPort http) {
    if (http == null || http.host().isEmpty() || http.port() <= 0) {
      return null;
    }
    String host = http.host().contains(":") && !http.host().startsWith("[")
        ? "[" + http.host() + "]" : http.host();
    return "//" + host + ":" + http.port() + "/";
  }

  /** A page on this server showing a table: {@code /table?id=<id>}, the id URL-encoded. */
  public static String query(String path, String param, String value) {
    return path + "?" + param + "="
        + java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * The navigation bar on top of every page: the server's name and role, then the links (Home,
   * Metrics, Health and whatever pages the role adds).
   */
  public static String nav(String serverName, String role, List<NavLink> links) {
    StringBuilder sb = new StringBuilder("<nav class=\"nav\"><b>").append(escape(serverName))
        .append("</b> <span class=\"role\">").append(escape(role)).append("</span>");
    for (NavLink l : links) {
      sb.append(" | ").append(link(l.path(), l.label()));
    }
    return sb.append("</nav>").toString();
  }

  /** A tablet's partition, briefly: its hash buckets and its key range as hex. */
  public static String partition(PartitionPB p) {
    HexFormat hex = HexFormat.of();
    return "buckets " + p.getHashBucketsList() + ", ["
        + hex.formatHex(p.getPartitionKeyStart().toByteArray()) + ", "
        + hex.formatHex(p.getPartitionKeyEnd().toByteArray()) + ")";
  }
}
