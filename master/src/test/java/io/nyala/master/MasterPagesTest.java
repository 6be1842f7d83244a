package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The master's pages on a real master with fake tablet servers: tables link to their pages, a
 * table's replicas name their tablet servers with role and state and link to their web UIs,
 * bad or unknown ids are a 400/404 naming them, and heartbeat answers carry the master's web
 * address for the tablet servers' pages. Without {@code --webserver_expose_tablet_ids} no page
 * lists a tablet id: the pages show counts, and those that list ids answer 403 naming the flag.
 */
@Timeout(60)
class MasterPagesTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir Path dir;

  private static HttpResponse<String> get(MasterFixture m, String pathAndQuery)
      throws Exception {
    HostPort http = m.master.httpAddress();
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://" + http.host() + ":"
        + http.port() + pathAndQuery)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void tablesAndReplicasByNameWithLinks() throws Exception {
    List<FakeTServer> ts = new ArrayList<>();
    try (MasterFixture m = MasterFixture.start(dir, "--webserver_expose_tablet_ids")) {
      for (int i = 0; i < 3; i++) {
        ts.add(new FakeTServer("ts-" + i));
        TSHeartbeatResponsePB r = ts.get(i).register(m.stub());
        assertThat(HostPort.fromPb(r.getMasterHttpAddress())).isEqualTo(m.master.httpAddress());
      }
      String id = m.stub().createTable(Tables.create("pages", 1, 3)).getTableId();
      SysTabletEntryPB tablet = m.master.catalog().catalog().read(s -> s.tabletsOf(id)).get(0);
      List<String> peers = tablet.getReplicasList().stream().map(RaftPeerPB::getUuid).toList();
      FakeTServer leader = byUuid(ts, peers.get(0));
      leader.heartbeat(m.stub(), FakeTServer.incremental(
          FakeTServer.leader(tablet.getTabletId(), 1)));
      byUuid(ts, peers.get(1)).heartbeat(m.stub(), FakeTServer.incremental(
          FakeTServer.follower(tablet.getTabletId(), leader.uuid, 1)));

      HttpResponse<String> home = get(m, "/");
      assertThat(home.statusCode()).isEqualTo(200);
      assertThat(home.body()).contains("<a href=\"/tables\">Tables</a>")
          .contains("<a href=\"/tablet-servers\">Tablet servers</a>")
          .contains("<a href=\"/metrics\">Metrics</a>").contains("m-test");
      HttpResponse<String> tables = get(m, "/tables");
      assertThat(tables.statusCode()).isEqualTo(200);
      assertThat(tables.body()).contains("<a href=\"/table?id=" + id + "\">pages</a>");

      for (String param : List.of(id, "pages")) {
        HttpResponse<String> table = get(m, "/table?id=" + param);
        assertThat(table.statusCode()).isEqualTo(200);
        assertThat(table.body()).contains("Table pages").contains("INT64")
            .contains("<a href=\"/tablets?table=" + id + "\">")
            .doesNotContain(tablet.getTabletId());
        HttpResponse<String> page = get(m, "/tablets?table=" + param);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("Tablets of").contains(tablet.getTabletId()).contains(
                "<span title=\"" + leader.uuid + "\">" + leader.name + "</span>");
        for (FakeTServer t : ts) {
          // Each replica: its name linked to its web UI, the uuid as the tooltip.
          assertThat(page.body()).contains("<a href=\"//127.0.0.1:2/\" title=\"" + t.uuid
              + "\">" + t.name + "</a>");
        }
        assertThat(page.body()).contains("LEADER").contains("FOLLOWER").contains("RUNNING")
            .contains("not reported");
      }

      HttpResponse<String> nope = get(m, "/table?id=nope%3Cb%3E");
      assertThat(nope.statusCode()).isEqualTo(404);
      assertThat(nope.body()).contains("no table with id or name 'nope&lt;b&gt;'")
          .contains("<a href=\"/tables\">Tables</a>").doesNotContain("Exception");
      HttpResponse<String> missing = get(m, "/table");
      assertThat(missing.statusCode()).isEqualTo(400);
      assertThat(missing.body()).contains("missing query parameter 'id'");
      assertThat(get(m, "/table?id=" + "x".repeat(300)).statusCode()).isEqualTo(400);
      HttpResponse<String> nopeTablets = get(m, "/tablets?table=nope");
      assertThat(nopeTablets.statusCode()).isEqualTo(404);
      assertThat(nopeTablets.body()).contains("no table with id or name 'nope'")
          .contains("query parameter 'table'");
      assertThat(get(m, "/tablets").statusCode()).isEqualTo(400);
      assertThat(get(m, "/tablets?table=" + "x".repeat(300)).statusCode()).isEqualTo(400);

      HttpResponse<String> servers = get(m, "/tablet-servers");
      assertThat(servers.statusCode()).isEqualTo(200);
      for (FakeTServer t : ts) {
        assertThat(servers.body()).contains(">" + t.name + "</a>");
      }
    } finally {
      for (FakeTServer t : ts) {
        t.close();
      }
    }
  }

  @Test
  void withoutTheFlagNoPageListsATabletIdAndCountsStand() throws Exception {
    List<FakeTServer> ts = new ArrayList<>();
    try (MasterFixture m = MasterFixture.start(dir)) {
      for (int i = 0; i < 3; i++) {
        ts.add(new FakeTServer("ts-" + i));
        ts.get(i).register(m.stub());
      }
      String id = m.stub().createTable(Tables.create("pages", 2, 3)).getTableId();
      List<SysTabletEntryPB> tablets = m.master.catalog().catalog().read(s -> s.tabletsOf(id));
      SysTabletEntryPB tablet = tablets.get(0);
      FakeTServer leader = byUuid(ts, tablet.getReplicas(0).getUuid());
      leader.heartbeat(m.stub(), FakeTServer.incremental(
          FakeTServer.leader(tablet.getTabletId(), 1)));

      HttpResponse<String> home = get(m, "/");
      assertThat(home.statusCode()).isEqualTo(200);
      assertThat(home.body()).contains("<h2>Catalog</h2>")
          .contains("<td>tables</td><td>1</td>").contains("<td>tablets</td><td>2</td>")
          .contains("<td>replicas</td><td>6</td>")
          .contains("<td>replicas RUNNING</td><td>1</td>")
          .contains("<td>replicas not reported</td><td>5</td>")
          .contains("<a href=\"/table?id=" + id + "\">pages</a>");
      HttpResponse<String> table = get(m, "/table?id=" + id);
      assertThat(table.statusCode()).isEqualTo(200);
      assertThat(table.body()).contains("Table pages").contains("INT64")
          .contains("<td>tablets</td><td>2</td>").contains("--webserver_expose_tablet_ids=true")
          .doesNotContain("/tablets?");
      for (String path : List.of("/", "/tables", "/table?id=" + id, "/tablet-servers")) {
        String body = get(m, path).body();
        for (SysTabletEntryPB t : tablets) {
          assertThat(body).as(path).doesNotContain(t.getTabletId());
        }
      }
      for (String path : List.of("/tablets?table=" + id, "/tablets", "/unknown-replicas")) {
        HttpResponse<String> hidden = get(m, path);
        assertThat(hidden.statusCode()).as(path).isEqualTo(403);
        assertThat(hidden.body()).as(path).hasLineCount(1)
            .contains("start the server with --webserver_expose_tablet_ids=true");
      }
    } finally {
      for (FakeTServer t : ts) {
        t.close();
      }
    }
  }

  private static FakeTServer byUuid(List<FakeTServer> ts, String uuid) {
    return ts.stream().filter(t -> t.uuid.equals(uuid)).findFirst().orElseThrow();
  }
}
