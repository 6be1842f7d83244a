package io.nyala.common.web;

import java.util.List;

/** Tiny helpers for the servers' status pages. */
public final class Html {
  private Html() {}

  public static String escape(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  /** A table with a header row; cells are escaped. */
  public static String table(List<String> header, List<List<String>> rows) {
    StringBuilder sb = new StringBuilder("<table><tr>");
    for (String h : header) {
      sb.append("<th>").append(escape(h)).append("</th>");
    }
    sb.append("</tr>");
    for (List<String> r : rows) {
      sb.append("<tr>");
      for (String c : r) {
        sb.append("<td>").append(escape(c)).append("</td>");
      }
      sb.append("</tr>");
    }
    return sb.append("</table>").toString();
  }
}
