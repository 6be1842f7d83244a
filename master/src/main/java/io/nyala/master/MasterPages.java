package io.nyala.master;

import io.nyala.common.HostPort;
import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.HashBucketSchemaPB;
import io.nyala.common.proto.HostPortPB;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.web.Html;
import io.nyala.common.web.WebServer;
import io.nyala.common.web.WebServer.HttpError;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.ratis.protocol.RaftPeer;

/**
 * The master's pages: home (who it is, whether it leads, the catalog's masters, counts of its
 * tables, tablets and replicas, its tables and tablet servers), the tables list, one table's
 * schema and counts, and the tablet servers list. Tablet servers appear by name, each linked to
 * its own web UI. No page here lists tablet ids: those are {@link MasterTabletPages}, served only
 * with {@code --webserver_expose_tablet_ids} (docs/architecture.md, "Web pages").
 */
final class MasterPages {
  /** Longer than any table name or id the catalog accepts: refused before the lookup. */
  private static final int MAX_TABLE_PARAM = 256;

  private final MasterServer server;
  private final SysCatalog catalog;
  private final CatalogManager catalogManager;
  private final TSManager tsManager;
  private final boolean exposeTabletIds;

  MasterPages(MasterServer server, SysCatalog catalog, CatalogManager catalogManager,
      TSManager tsManager, boolean exposeTabletIds) {
    this.server = server;
    this.catalog = catalog;
    this.catalogManager = catalogManager;
    this.tsManager = tsManager;
    this.exposeTabletIds = exposeTabletIds;
  }

  /** Adds the pages past the home page, and their nav links. */
  void addTo(WebServer web) {
    web.addNavLink("/tables", "Tables");
    web.addNavLink("/tablet-servers", "Tablet servers");
    web.addPage("/tables", "Tables", () -> "<h1>Tables</h1>" + tables());
    web.addPage("/table", "Table", this::table);
    web.addPage("/tablet-servers", "Tablet servers",
        () -> "<h1>Tablet servers</h1>" + tservers());
    new MasterTabletPages(server, catalog, catalogManager, this).addTo(web, exposeTabletIds);
  }

  String render() {
    StringBuilder sb = new StringBuilder();
    sb.append("<h1>Nyala master ").append(Html.escape(server.name())).append("</h1>");
    sb.append(Html.table(List.of("uuid", "role", "state", "RPC", "Raft", "catalog leader"),
        List.of(List.of(server.uuid(), "master", server.isLeader() ? "leader" : "follower",
            server.rpcAddress().toString(), server.raftAddress().toString(),
            leaderMasterName()))));
    sb.append("<h2>Masters</h2>").append(masters());
    sb.append("<h2>Catalog</h2>").append(tabletCounts(catalog.read(s -> List.copyOf(
        s.tablets())), catalog.read(s -> s.tables().size())));
    sb.append("<h2>").append(Html.link("/tables", "Tables")).append("</h2>").append(tables());
    sb.append("<h2>").append(Html.link("/tablet-servers", "Tablet servers")).append("</h2>")
        .append(tservers());
    int unknown = catalogManager.unknownReplicas().size();
    if (unknown > 0) {
      // Left alone on purpose (docs/data-safety.md): an operator decides what they are.
      sb.append("<h2>Replicas of tablets this catalog does not know</h2><p>").append(unknown)
          .append(unknown == 1 ? " replica" : " replicas").append("</p>")
          .append(MasterTabletPages.hiddenNote(exposeTabletIds, "/unknown-replicas",
              "Those replicas"));
    }
    return sb.toString();
  }

  /**
   * Counts only, no tablet id: tables (when {@code tables} is not negative), tablets, and their
   * replicas by the state their tablet servers last reported.
   */
  private String tabletCounts(Collection<SysTabletEntryPB> tablets, int tables) {
    ReplicaReports reports = catalogManager.reports();
    Map<String, Integer> byState = new TreeMap<>();
    int replicas = 0;
    for (SysTabletEntryPB t : tablets) {
      for (RaftPeerPB peer : t.getReplicasList()) {
        ReplicaReports.ReplicaState r = reports.replica(t.getTabletId(), peer.getUuid());
        byState.merge(r == null ? "not reported" : r.state().name(), 1, Integer::sum);
        replicas++;
      }
    }
    List<List<String>> rows = new ArrayList<>();
    if (tables >= 0) {
      rows.add(List.of("tables", String.valueOf(tables)));
    }
    rows.add(List.of("tablets", String.valueOf(tablets.size())));
    rows.add(List.of("replicas", String.valueOf(replicas)));
    byState.forEach((state, n) -> rows.add(List.of("replicas " + state, String.valueOf(n))));
    return Html.table(List.of("", "count"), rows);
  }

  /**
   * A master's name: this one's own; another's RPC address, which is a server's name unless
   * --server_name sets one (the catalog's Raft peers carry no names).
   */
  private String masterName(RaftPeer p) {
    return p.getId().toString().equals(server.uuid()) ? server.name()
        : String.valueOf(p.getClientAddress());
  }

  String leaderMasterName() {
    RaftPeer leader = catalog.leaderPeer();
    return leader == null ? "none known" : masterName(leader);
  }

  /** The catalog group's members as this master's Raft configuration has them. */
  private String masters() {
    RaftPeer leader = catalog.leaderPeer();
    List<List<String>> rows = new ArrayList<>();
    for (RaftPeer p : catalog.peers()) {
      boolean leads = leader != null && leader.getId().equals(p.getId());
      rows.add(List.of(masterName(p), p.getId().toString(), leads ? "LEADER" : "FOLLOWER",
          String.valueOf(p.getClientAddress()), String.valueOf(p.getAddress())));
    }
    return Html.table(List.of("name", "uuid", "role", "RPC", "Raft"), rows);
  }

  private String tables() {
    List<List<String>> rows = catalog.read(s -> {
      List<List<String>> out = new ArrayList<>();
      s.tables().stream().sorted(Comparator.comparing(SysTableEntryPB::getName)).forEach(t ->
          out.add(List.of(Html.link(Html.query("/table", "id", t.getTableId()), t.getName()),
              Html.escape(t.getTableId()), Html.escape(t.getState().name()),
              String.valueOf(s.tabletIdsOf(t.getTableId()).size()),
              String.valueOf(t.getNumReplicas()))));
      return out;
    });
    return Html.rawTable(List.of("name", "id", "state", "tablets", "replicas"), rows);
  }

  /**
   * {@code /table?id=}: one table by id or name, its schema and counts of its tablets and
   * replicas. A missing, overlong or unknown id is a 400 or 404 naming it.
   */
  String table(WebServer.Request req) {
    SysTableEntryPB t = tableParam(req, "id");
    List<SysTabletEntryPB> tablets = catalog.read(s -> s.tabletsOf(t.getTableId()));
    StringBuilder sb = new StringBuilder("<h1>Table ").append(Html.escape(t.getName()))
        .append("</h1>");
    sb.append(Html.table(List.of("id", "state", "replicas", "schema version"), List.of(List.of(
        t.getTableId(), t.getState().name(), String.valueOf(t.getNumReplicas()),
        String.valueOf(t.getSchema().getVersion())))));
    sb.append("<h2>Schema</h2>");
    List<List<String>> cols = new ArrayList<>();
    for (ColumnSchemaPB c : t.getSchema().getColumnsList()) {
      cols.add(List.of(c.getName(), c.getType().name(), c.getIsKey() ? "key" : "",
          c.getIsNullable() ? "nullable" : "not null"));
    }
    sb.append(Html.table(List.of("column", "type", "key", "nullable"), cols));
    List<String> hash = new ArrayList<>();
    for (HashBucketSchemaPB h : t.getPartitionSchema().getHashSchemasList()) {
      hash.add("hash(" + String.join(", ", h.getColumnsList()) + ") into " + h.getNumBuckets()
          + " buckets");
    }
    sb.append("<p>Partitioning: ").append(Html.escape(hash.isEmpty() ? "a single tablet"
        : String.join("; ", hash))).append("</p>");
    sb.append("<h2>Tablets</h2>");
    if (!server.isLeader()) {
      // Tablet servers heartbeat, and so report their replicas, to the leader only.
      sb.append("<p>This master does not lead the catalog: replica states are known to the "
          + "leader, ").append(Html.escape(leaderMasterName())).append(".</p>");
    }
    sb.append(tabletCounts(tablets, -1)).append(MasterTabletPages.hiddenNote(exposeTabletIds,
        Html.query("/tablets", "table", t.getTableId()), "Its tablets and replicas"));
    return sb.toString();
  }

  /** The table a query parameter names by id or name; a 400 or 404 naming the parameter. */
  SysTableEntryPB tableParam(WebServer.Request req, String param) {
    String id = req.required(param);
    if (id.length() > MAX_TABLE_PARAM) {
      throw HttpError.badRequest("query parameter '" + param + "' is longer than "
          + MAX_TABLE_PARAM + " characters: " + HttpError.shown(id));
    }
    SysTableEntryPB t = catalog.read(s -> {
      SysTableEntryPB byId = s.tableById(id);
      return byId != null ? byId : s.tableByName(id);
    });
    if (t == null) {
      throw MasterTabletPages.noSuchTable(param, id);
    }
    return t;
  }

  /** A tablet server's name, its uuid as the tooltip; its RPC address if it never registered. */
  String tserverName(String uuid, RaftPeerPB peer) {
    TSDescriptor d = tsManager.get(uuid);
    if (d != null) {
      return Html.titled(d.registration().getName(), uuid);
    }
    String shown = peer != null && peer.hasRpcAddress() ? addr(peer.getRpcAddress()) : uuid;
    return Html.titled(shown + " (not registered)", uuid);
  }

  /** A tablet server's name linked to its web UI (uuid as the tooltip), when it has one. */
  String tserverLink(String uuid, RaftPeerPB peer) {
    TSDescriptor d = tsManager.get(uuid);
    if (d == null) {
      return tserverName(uuid, peer);
    }
    var reg = d.registration();
    String url = webUrl(reg.getHttpAddress());
    return url == null ? Html.titled(reg.getName(), uuid) : Html.link(url, reg.getName(), uuid);
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
      rows.add(List.of(tserverLink(d.uuid(), null), Html.escape(d.uuid()),
          Html.escape(addr(r.getRpcAddress())), Html.escape(addr(r.getHttpAddress())),
          tsManager.isLive(d) ? "live" : "dead",
          tsManager.millisSinceHeartbeat(d) + " ms ago",
          String.valueOf(n), String.valueOf(hc.awake()), String.valueOf(hc.hibernated()),
          Html.escape(failedDirs(d))));
    }
    rows.add(List.of("total", "", "", "", "", "", String.valueOf(replicas),
        String.valueOf(total.awake()), String.valueOf(total.hibernated()), ""));
    return Html.rawTable(List.of("name", "uuid", "RPC", "HTTP", "live", "last heartbeat",
        "replicas", "awake", "hibernated", "failed data dirs"), rows);
  }

  /** "k of n: dirs" (docs/data-safety.md, "Disk faults"); empty when none failed. */
  static String failedDirs(TSDescriptor d) {
    List<String> failed = d.failedDataDirs();
    if (failed.isEmpty()) {
      return "";
    }
    return failed.size() + " of " + d.numDataDirs() + ": " + String.join(", ", failed)
        + (d.allDataDirsFailed() ? " (takes no new replica)" : "");
  }

  private static String webUrl(HostPortPB pb) {
    return pb.getHost().isEmpty() ? null : Html.webUrl(HostPort.fromPb(pb));
  }

  private static String addr(HostPortPB pb) {
    return pb.getHost().isEmpty() ? "" : HostPort.fromPb(pb).toString();
  }
}
