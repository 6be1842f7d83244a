package io.nyala.common.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure rendering: escaping in links and tables, the nav bar, web URLs. */
class HtmlTest {
  @Test
  void navNamesTheServerAndRoleThenLinksInOrder() {
    String nav = Html.nav("ts-<1>", "tablet server", List.of(new Html.NavLink("/", "Home"),
        new Html.NavLink("/metrics", "Metrics"), new Html.NavLink("/healthz", "Health")));
    assertThat(nav).startsWith("<nav").contains("<b>ts-&lt;1&gt;</b>")
        .contains("tablet server")
        .containsSubsequence("<a href=\"/\">Home</a>", "<a href=\"/metrics\">Metrics</a>",
            "<a href=\"/healthz\">Health</a>")
        .doesNotContain("<1>");
  }

  @Test
  void linksAndTitlesAreEscaped() {
    assertThat(Html.link("/table?id=a&b", "x\"><script>", "u\"id"))
        .isEqualTo("<a href=\"/table?id=a&amp;b\" title=\"u&quot;id\">x&quot;&gt;&lt;script&gt;"
            + "</a>");
    assertThat(Html.titled("<b>", "t")).isEqualTo("<span title=\"t\">&lt;b&gt;</span>");
  }

  @Test
  void queryEncodesTheValue() {
    assertThat(Html.query("/table", "id", "a b&c")).isEqualTo("/table?id=a+b%26c");
  }

  @Test
  void tableEscapesCellsAndRawTableKeepsThem() {
    assertThat(Html.table(List.of("h"), List.of(List.of("<i>"))))
        .isEqualTo("<table><tr><th>h</th></tr><tr><td>&lt;i&gt;</td></tr></table>");
    assertThat(Html.rawTable(List.of("<h>"), List.of(List.of(Html.link("/x", "x")))))
        .isEqualTo("<table><tr><th>&lt;h&gt;</th></tr><tr><td><a href=\"/x\">x</a></td></tr>"
            + "</table>");
  }

  @Test
  void webUrlOfAnHttpAddress() {
    assertThat(Html.webUrl(new HostPort("127.0.0.1", 8050))).isEqualTo("//127.0.0.1:8050/");
    assertThat(Html.webUrl(new HostPort("::1", 8050))).isEqualTo("//[::1]:8050/");
    assertThat(Html.webUrl(new HostPort("h", 0))).isNull();
    assertThat(Html.webUrl(null)).isNull();
  }
}
