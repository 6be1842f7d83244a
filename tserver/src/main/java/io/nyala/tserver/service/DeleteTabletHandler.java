package io.nyala.tserver.service;

import io.nyala.common.NyalaException;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.tserver.copy.CopySessions;
import io.nyala.tserver.heartbeat.ClusterIdGuard;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.scan.ScannerManager;
import java.util.function.Supplier;
import org.apache.ratis.server.RaftServer;

/**
 * The DeleteTablet RPC (docs/data-safety.md, "Deletes"): refused when the caller belongs to
 * another cluster; unless the tablet was dropped, a compare-and-set against the replica's own
 * Raft configuration: refused (ILLEGAL_STATE) when that configuration is newer than the one the
 * caller saw exclude the replica, or lists this server as a member at that index or later, or
 * when the caller gives no index and this server is a member.
 */
final class DeleteTabletHandler {
  private final TabletManager tablets;
  private final Supplier<RaftServer> raft;
  private final ScannerManager scanners;
  private final CopySessions copySessions;
  private final ClusterIdGuard clusterGuard;
  private final String selfUuid;
  private final MetricRegistry.Counter received;
  private final MetricRegistry.Counter refused;

  DeleteTabletHandler(TabletManager tablets, Supplier<RaftServer> raft,
      ScannerManager scanners, CopySessions copySessions, ClusterIdGuard clusterGuard,
      String selfUuid, MetricRegistry metrics) {
    this.tablets = tablets;
    this.raft = raft;
    this.scanners = scanners;
    this.copySessions = copySessions;
    this.clusterGuard = clusterGuard;
    this.selfUuid = selfUuid;
    this.received = metrics.counter("delete_tablet_requests_total",
        "DeleteTablet calls received (refused ones included)");
    this.refused = metrics.counter("delete_tablet_requests_refused_total",
        "DeleteTablet calls refused: another cluster's caller or a stale configuration index");
  }

  void delete(DeleteTabletRequestPB req) {
    received.inc();
    String id = req.getTabletId();
    try {
      clusterGuard.checkCaller(req.getClusterId(), "DeleteTablet of tablet " + id);
      TabletReplica replica = tablets.get(id);
      if (!req.getTabletDropped()) {
        checkConfig(replica, req);
      }
    } catch (NyalaException e) {
      refused.inc();
      throw e;
    }
    scanners.closeForTablet(id);
    copySessions.closeForTablet(id);
    tablets.deleteTablet(id, req.getReason());
  }

  private void checkConfig(TabletReplica replica, DeleteTabletRequestPB req) {
    TabletReplica.ConfigView mine = replica.configView(raft.get(), selfUuid);
    if (mine == null) {
      return; // no group open here (it failed to start): nothing can prove it a member
    }
    String id = req.getTabletId();
    if (!req.hasCasConfigIndex()) {
      if (mine.member()) {
        throw NyalaException.illegalState("tablet %s: this server is a member of its "
            + "configuration at index %d; a delete must name the configuration index that "
            + "excludes it (cas_config_index) or be of a dropped tablet", id, mine.index());
      }
      return;
    }
    long cas = req.getCasConfigIndex();
    if (mine.index() > cas) {
      throw NyalaException.illegalState("tablet %s: the replica's configuration index %d is "
          + "newer than the caller's %d: delete refused", id, mine.index(), cas);
    }
    if (mine.index() == cas && mine.member()) {
      throw NyalaException.illegalState("tablet %s: the replica's configuration at index %d "
          + "lists this server as a member: delete refused", id, cas);
    }
  }
}
