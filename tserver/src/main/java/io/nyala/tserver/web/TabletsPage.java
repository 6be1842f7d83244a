package io.nyala.tserver.web;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.web.Html;
import io.nyala.common.web.WebServer;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.tablet.BlockTabletStore;
import java.util.ArrayList;
import java.util.List;

/**
 * The tablet server's {@code /tablets} page: one row per tablet replica with its table,
 * partition, state, role, leader, last applied index, rows and error. It lists tablet ids and
 * the web UI has no authentication, so it is served only with
 * {@code --webserver_expose_tablet_ids} and answers 403 otherwise (docs/architecture.md, "Web
 * pages"); the home page ({@link StatusPage}) shows counts instead.
 */
public final class TabletsPage {
  public static final String PATH = "/tablets";

  private TabletsPage() {}

  /** Adds the page (and its nav link when it is served); 403 naming the flag otherwise. */
  public static void addTo(WebServer web, TabletServer ts, boolean exposed) {
    if (exposed) {
      web.addNavLink(PATH, "Tablets");
    }
    web.addTabletIdPage(PATH, "Tablets", exposed, req -> render(ts));
  }

  /** The page's body: one row per replica of {@code ts}. */
  public static String render(TabletServer ts) {
    List<List<String>> rows = new ArrayList<>();
    for (TabletReplica r : ts.tabletManager().replicas()) {
      ListTabletsResponsePB.StatusPB s = r.status(ts.raftServer());
      rows.add(List.of(Html.escape(s.getTabletId()), Html.escape(s.getTableName()),
          Html.escape(Html.partition(s.getPartition())), Html.escape(s.getState()),
          Html.escape(s.getRole().name()), leader(ts, r, s.getLeaderUuid()),
          Long.toString(s.getLastAppliedIndex()), Long.toString(s.getEstimatedRows()),
          Html.escape(s.getError().isEmpty() ? diskFull(r) : s.getError())));
    }
    return "<h1>Tablets</h1>" + Html.rawTable(List.of("tablet", "table", "partition", "state",
        "role", "leader", "last applied", "rows", "error"), rows);
  }

  /** Why a running replica's flushes fail for a full disk, or "" (docs/data-safety.md). */
  private static String diskFull(TabletReplica r) {
    BlockTabletStore store = r.blockStore();
    NyalaException full = store == null ? null : store.diskFull();
    return full == null ? "" : full.detail();
  }

  /**
   * The tablet's leader by name: this server's own name, else the leader's RPC address from the
   * tablet's peers (a server's default name; tablet servers do not learn each other's names),
   * the uuid as the tooltip.
   */
  private static String leader(TabletServer ts, TabletReplica r, String leaderUuid) {
    if (leaderUuid.isEmpty()) {
      return "";
    }
    if (leaderUuid.equals(ts.uuid())) {
      return Html.titled(ts.name(), leaderUuid);
    }
    for (RaftPeerPB p : r.metadata().getInitialPeersList()) {
      if (p.getUuid().equals(leaderUuid) && p.hasRpcAddress()) {
        return Html.titled(HostPort.fromPb(p.getRpcAddress()).toString(), leaderUuid);
      }
    }
    return Html.escape(leaderUuid);
  }
}
