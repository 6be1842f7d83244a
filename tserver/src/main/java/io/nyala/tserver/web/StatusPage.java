package io.nyala.tserver.web;

import io.nyala.common.HostPort;
import io.nyala.common.web.Html;
import io.nyala.common.web.WebServer;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.fs.DataDirFailures;
import io.nyala.tserver.fs.log.LogBlockManager;
import io.nyala.tserver.replica.ReplicaState;
import io.nyala.tserver.replica.TabletReplica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tablet server's home page: identity, addresses, a link to the leader master's web UI,
 * counts of its tables and tablet replicas by state, and the data dirs that failed, if any. It
 * lists no tablet id: the web UI has no authentication, so the list of replicas is
 * {@link TabletsPage}, served only with {@code --webserver_expose_tablet_ids}
 * (docs/architecture.md, "Web pages").
 */
public final class StatusPage {
  private StatusPage() {}

  /**
   * The home page: counts only, no tablet id; {@code exposeTabletIds} says whether
   * {@link TabletsPage} lists them.
   */
  public static String render(TabletServer ts, boolean exposeTabletIds) {
    HostPort http = ts.httpAddress();
    StringBuilder sb = new StringBuilder();
    sb.append("<h1>").append(Html.escape(ts.name())).append("</h1>")
        .append("<p>role: tablet server<br>uuid: ").append(Html.escape(ts.uuid()))
        .append("<br>RPC: ").append(Html.escape(String.valueOf(ts.rpcAddress())))
        .append("<br>Raft: ").append(Html.escape(String.valueOf(ts.raftAddress())))
        .append("<br>HTTP: ").append(Html.escape(String.valueOf(http)))
        .append("<br>").append(masters(ts))
        .append("</p><h2>Tablets</h2>");
    Map<ReplicaState, Long> byState = new EnumMap<>(ReplicaState.class);
    long diskFull = 0;
    for (TabletReplica r : ts.tabletManager().replicas()) {
      byState.merge(r.state(), 1L, Long::sum);
      if (r.blockStore() != null && r.blockStore().diskFull() != null) {
        diskFull++;
      }
    }
    long cold = byState.getOrDefault(ReplicaState.HIBERNATED, 0L);
    sb.append("<p>").append(ts.tabletManager().count()).append(" replicas: ")
        .append(byState.getOrDefault(ReplicaState.RUNNING, 0L)).append(" awake (hot), ")
        .append(cold).append(" hibernated (cold)");
    byState.forEach((st, n) -> {
      if (st != ReplicaState.RUNNING && st != ReplicaState.HIBERNATED) {
        sb.append(", ").append(n).append(' ').append(st.name().toLowerCase(Locale.ROOT));
      }
    });
    sb.append("</p>");
    if (diskFull > 0) {
      sb.append("<p class=\"error\">").append(diskFull).append(diskFull == 1 ? " replica" :
          " replicas").append(" cannot flush: the disk is full</p>");
    }
    long tables = ts.tabletManager().replicas().stream()
        .map(r -> r.metadata().getTableId()).distinct().count();
    sb.append("<p>").append(tables).append(tables == 1 ? " table" : " tables").append("</p>");
    sb.append(exposeTabletIds ? "<p>" + Html.link(TabletsPage.PATH, "The replicas") + "</p>"
        : "<p>" + Html.escape("The replicas (tablet ids) are not shown: the web UI has no "
            + "authentication; start the server with " + WebServer.EXPOSE_TABLET_IDS_FLAG
            + "=true to list them") + "</p>");
    failedDirs(ts, sb);
    return sb.toString();
  }

  /** The data dirs that failed at run time (docs/data-safety.md, "Disk faults"), if any. */
  private static void failedDirs(TabletServer ts, StringBuilder sb) {
    if (!(ts.blockManager() instanceof LogBlockManager lbm)
        || lbm.dirFailures().failedCount() == 0) {
      return;
    }
    DataDirFailures f = lbm.dirFailures();
    List<List<String>> rows = new ArrayList<>();
    for (Path d : f.failedDirs()) {
      rows.add(List.of(Html.escape(d.toString()), Html.escape(f.why(d))));
    }
    sb.append("<h2>Failed data dirs</h2><p>They take no new blocks until a restart.</p>")
        .append(Html.rawTable(List.of("dir", "why"), rows));
  }

  /**
   * The master link: the leader's web UI, whose HTTP address the leader sends in its heartbeat
   * answers; until one answered (or with its web server off), the configured RPC addresses.
   */
  private static String masters(TabletServer ts) {
    String url = Html.webUrl(ts.leaderMasterHttpAddress());
    if (url != null) {
      return "master: " + Html.link(url, "leader master (" + ts.leaderMasterHttpAddress() + ")");
    }
    return "masters (RPC, no web UI known yet): "
        + Html.escape(String.valueOf(ts.masterAddresses()));
  }
}
