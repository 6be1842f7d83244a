package io.nyala.master;

import io.nyala.common.HostPort;
import io.nyala.common.proto.HostPortPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.web.Html;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.ratis.protocol.RaftPeer;

/**
 * The master's home page: who it is, whether it leads, the catalog's masters, its tables and
 * tablet servers.
 */
final class MasterPages {
  private final MasterServer server;
  private final SysCatalog catalog;
  private final CatalogManager catalogManager;
  private final TSManager tsManager;

  MasterPages(MasterServer server, SysCatalog catalog, CatalogManager catalogManager,
      TSManager tsManager) {
    this.server = server;
    this.catalog = catalog;
    this.catalogManager = catalogManager;
    this.tsManager = tsManager;
  }

  String render() {
    StringBuilder sb = new StringBuilder();
    sb.append("<h1>Nyala master ").append(Html.escape(server.name())).append("</h1>");
    sb.append(Html.table(List.of("uuid", "role", "state", "RPC", "Raft"), List.of(List.of(
        server.uuid(), "master", server.isLeader() ? "leader" : "follower",
        server.rpcAddress().toString(), server.raftAddress().toString()))));
    sb.append("<h2>Masters</h2>").append(masters());
    sb.append("<h2>Tables</h2>").append(tables());
    sb.append("<h2>Tablet servers</h2>").append(tservers());
    List<String> unknown = catalogManager.unknownReplicas();
    if (!unknown.isEmpty()) {
      // Left alone on purpose (docs/data-safety.md): an operator decides what they are.
      sb.append("<h2>Replicas of tablets this catalog does not know</h2>")
          .append(Html.table(List.of("tablet on tablet server"),
              unknown.stream().map(List::of).toList()));
    }
    return sb.toString();
  }

  /** The catalog group's members as this master's Raft configuration has them. */
  private String masters() {
    RaftPeer leader = catalog.leaderPeer();
    List<List<String>> rows = new ArrayList<>();
    for (RaftPeer p : catalog.peers()) {
      boolean leads = leader != null && leader.getId().equals(p.getId());
      rows.add(List.of(p.getId().toString(), leads ? "LEADER" : "FOLLOWER",
          String.valueOf(p.getClientAddress()), String.valueOf(p.getAddress())));
    }
    return Html.table(List.of("uuid", "role", "RPC", "Raft"), rows);
  }

  private String tables() {
    List<List<String>> rows = catalog.read(s -> {
      List<List<String>> out = new ArrayList<>();
      s.tables().stream().sorted(Comparator.comparing(SysTableEntryPB::getName)).forEach(t ->
          out.add(List.of(t.getName(), t.getTableId(),
              String.valueOf(s.tabletIdsOf(t.getTableId()).size()),
              String.valueOf(t.getNumReplicas()))));
      return out;
    });
    return Html.table(List.of("name", "id", "tablets", "replicas"), rows);
  }

  /** One row per tablet server, then the cluster's totals; awake/hibernated as last reported. */
  private String tservers() {
    var counts = catalogManager.replicaCounts();
    var hotCold = catalogManager.reports().hotColdByTserver();
    ReplicaReports.HotCold total = ReplicaReports.HotCold.NONE;
    int replicas = 0;
    List<List<String>> rows = new ArrayList<>();
    for (TSDescriptor d : tsManager.all()) {
      var r = d.registration();
      ReplicaReports.HotCold hc = hotCold.getOrDefault(d.uuid(), ReplicaReports.HotCold.NONE);
      int n = counts.getOrDefault(d.uuid(), 0);
      total = total.plus(hc);
      replicas += n;
      rows.add(List.of(r.getName(), d.uuid(), addr(r.getRpcAddress()), addr(r.getHttpAddress()),
          tsManager.isLive(d) ? "live" : "dead",
          tsManager.millisSinceHeartbeat(d) + " ms ago",
          String.valueOf(n), String.valueOf(hc.awake()), String.valueOf(hc.hibernated())));
    }
    rows.add(List.of("total", "", "", "", "", "", String.valueOf(replicas),
        String.valueOf(total.awake()), String.valueOf(total.hibernated())));
    return Html.table(List.of("name", "uuid", "RPC", "HTTP", "live", "last heartbeat",
        "replicas", "awake", "hibernated"), rows);
  }

  private static String addr(HostPortPB pb) {
    return pb.getHost().isEmpty() ? "" : HostPort.fromPb(pb).toString();
  }
}
