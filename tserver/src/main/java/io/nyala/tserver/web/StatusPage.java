package io.nyala.tserver.web;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.web.Html;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.fs.DataDirFailures;
import io.nyala.tserver.fs.log.LogBlockManager;
import io.nyala.tserver.replica.ReplicaState;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.tablet.BlockTabletStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tablet server's home page: identity, addresses, a link to the leader master's web UI, a
 * table of its tablet replicas and the data dirs that failed, if any.
 */
public final class StatusPage {
  private StatusPage() {}

  public static String render(TabletServer ts) {
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
    for (TabletReplica r : ts.tabletManager().replicas()) {
      byState.merge(r.state(), 1L, Long::sum);
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
    List<List<String>> rows = new ArrayList<>();
    for (TabletReplica r : ts.tabletManager().replicas()) {
      ListTabletsResponsePB.StatusPB s = r.status(ts.raftServer());
      rows.add(List.of(Html.escape(s.getTabletId()), Html.escape(s.getTableName()),
          Html.escape(Html.partition(s.getPartition())), Html.escape(s.getState()),
          Html.escape(s.getRole().name()), leader(ts, r, s.getLeaderUuid()),
          Long.toString(s.getLastAppliedIndex()), Long.toString(s.getEstimatedRows()),
          Html.escape(s.getError().isEmpty() ? diskFull(r) : s.getError())));
    }
    sb.append(Html.rawTable(List.of("tablet", "table", "partition", "state", "role", "leader",
        "last applied", "rows", "error"), rows));
    failedDirs(ts, sb);
    return sb.toString();
  }

  /** Why a running replica's flushes fail for a full disk, or "" (docs/data-safety.md). */
  private static String diskFull(TabletReplica r) {
    BlockTabletStore store = r.blockStore();
    NyalaException full = store == null ? null : store.diskFull();
    return full == null ? "" : full.detail();
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
