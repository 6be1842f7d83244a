package io.nyala.master;

import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.web.Html;
import io.nyala.common.web.WebServer;
import io.nyala.common.web.WebServer.HttpError;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.master.catalog.SysCatalog;
import java.util.ArrayList;
import java.util.List;

/**
 * The master's pages that list tablet ids: one table's tablets with their replicas
 * ({@code /tablets?table=}) and the replicas of tablets the catalog does not know
 * ({@code /unknown-replicas}). The web UI has no authentication, so they are served only with
 * {@code --webserver_expose_tablet_ids} and answer 403 otherwise (docs/architecture.md, "Web
 * pages"); the other pages show counts instead.
 */
final class MasterTabletPages {
  private final MasterServer server;
  private final SysCatalog catalog;
  private final CatalogManager catalogManager;
  private final MasterPages pages;

  MasterTabletPages(MasterServer server, SysCatalog catalog, CatalogManager catalogManager,
      MasterPages pages) {
    this.server = server;
    this.catalog = catalog;
    this.catalogManager = catalogManager;
    this.pages = pages;
  }

  /** Adds both pages: served when {@code exposed}, else 403 naming the flag. */
  void addTo(WebServer web, boolean exposed) {
    web.addTabletIdPage("/tablets", "Tablets", exposed, this::tablets);
    web.addTabletIdPage("/unknown-replicas", "Unknown replicas", exposed,
        req -> unknownReplicas());
  }

  /**
   * {@code /tablets?table=}: one table's tablets, one row per replica. A missing, overlong or
   * unknown table is a 400 or 404 naming it.
   */
  String tablets(WebServer.Request req) {
    SysTableEntryPB t = pages.tableParam(req, "table");
    List<SysTabletEntryPB> tablets = catalog.read(s -> s.tabletsOf(t.getTableId()));
    StringBuilder sb = new StringBuilder("<h1>Tablets of ")
        .append(Html.link(Html.query("/table", "id", t.getTableId()), t.getName()))
        .append("</h1>");
    if (!server.isLeader()) {
      // Tablet servers heartbeat, and so report their replicas, to the leader only.
      sb.append("<p>This master does not lead the catalog: replica roles and states are known "
          + "to the leader, ").append(Html.escape(pages.leaderMasterName())).append(".</p>");
    }
    sb.append(Html.rawTable(List.of("tablet", "partition", "leader", "replica (tablet server)",
        "role", "replica state"), tabletRows(tablets)));
    return sb.toString();
  }

  private String unknownReplicas() {
    // Left alone on purpose (docs/data-safety.md): an operator decides what they are.
    return "<h1>Replicas of tablets this catalog does not know</h1>"
        + Html.table(List.of("tablet on tablet server"),
            catalogManager.unknownReplicas().stream().map(List::of).toList());
  }

  private List<List<String>> tabletRows(List<SysTabletEntryPB> tablets) {
    ReplicaReports reports = catalogManager.reports();
    List<List<String>> rows = new ArrayList<>();
    for (SysTabletEntryPB tablet : tablets) {
      String tabletId = tablet.getTabletId();
      ReplicaReports.Leader leader = reports.leader(tabletId);
      String leaderCell = leader != null ? pages.tserverName(leader.uuid(), null)
          : reports.isHibernated(tabletId) ? "none (hibernated)" : "none known";
      boolean first = true;
      for (RaftPeerPB peer : tablet.getReplicasList()) {
        ReplicaReports.ReplicaState r = reports.replica(tabletId, peer.getUuid());
        rows.add(List.of(first ? Html.escape(tabletId) : "",
            first ? Html.escape(Html.partition(tablet.getPartition())) : "",
            first ? leaderCell : "",
            pages.tserverLink(peer.getUuid(), peer),
            r == null ? "" : Html.escape(r.role().name()),
            r == null ? "not reported" : Html.escape(r.state().name())
                + (r.copying() ? " (tablet copy)" : "")));
        first = false;
      }
      if (tablet.getReplicasList().isEmpty()) {
        rows.add(List.of(Html.escape(tabletId), Html.escape(Html.partition(
            tablet.getPartition())), leaderCell, "", "", ""));
      }
    }
    return rows;
  }

  /** On a page with counts: a link to the page with the ids, or which flag serves it. */
  static String hiddenNote(boolean exposed, String href, String what) {
    if (exposed) {
      return "<p>" + Html.link(href, what) + "</p>";
    }
    return "<p>" + Html.escape(what + " (tablet ids) are not shown: the web UI has no "
        + "authentication; start the masters with " + WebServer.EXPOSE_TABLET_IDS_FLAG
        + "=true to list them") + "</p>";
  }

  static HttpError noSuchTable(String param, String value) {
    return HttpError.notFound("no table with id or name " + HttpError.shown(value)
        + " (query parameter '" + param + "')");
  }
}
