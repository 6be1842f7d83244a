package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletReportPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.master.tsmanager.TSAdminClient;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a tserver's tablet report: records replica states and leaders, promotes CREATING
 * tablets that have a leader, adopts a leader's changed configuration ({@link ConfigReconciler}),
 * and reconciles: a replica the catalog does not assign to that
 * tserver (unknown tablet, deleted table, or not a member) is deleted there, asynchronously.
 */
final class TabletReportProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(TabletReportProcessor.class);

  private record Known(SysTabletEntryPB tablet, String staleReason) {}

  private final SysCatalog catalog;
  private final ReplicaReports reports;
  private final TabletCreator creator;
  private final TSAdminClient admin;
  private final ConfigReconciler configs;
  /** (tablet id, tserver uuid) of replicas joining a tablet: not strays though not listed. */
  private volatile BiPredicate<String, String> joining = (t, u) -> false;

  TabletReportProcessor(SysCatalog catalog, ReplicaReports reports, TabletCreator creator,
      TSAdminClient admin, TSManager tsManager) {
    this.configs = new ConfigReconciler(catalog, tsManager);
    this.catalog = catalog;
    this.reports = reports;
    this.creator = creator;
    this.admin = admin;
  }

  void setJoining(BiPredicate<String, String> joining) {
    this.joining = joining;
  }

  void process(TSDescriptor ts, TabletReportPB report) {
    String uuid = ts.uuid();
    Set<String> reportedIds = new HashSet<>();
    report.getUpdatedTabletsList().forEach(r -> reportedIds.add(r.getTabletId()));
    if (!report.getIsIncremental()) {
      reports.retainOnly(uuid, reportedIds);
    }
    report.getRemovedTabletIdsList().forEach(id -> reports.remove(uuid, id));
    Map<String, Known> known = lookUp(uuid, reportedIds);
    for (ReportedTabletPB r : report.getUpdatedTabletsList()) {
      Known k = known.get(r.getTabletId());
      if (k.staleReason() != null && joining.test(r.getTabletId(), uuid)) {
        continue; // added to the catalog once the leader commits the configuration change
      }
      if (k.staleReason() != null) {
        reports.remove(uuid, r.getTabletId());
        sendDelete(uuid, ts.rpcAddress(), r.getTabletId(), k.staleReason());
        continue;
      }
      ReplicaReports.Leader leader = reports.update(uuid, r);
      if (leader != null && k.tablet().getState() == SysTabletStatePB.SYS_TABLET_CREATING) {
        creator.markRunning(k.tablet(), leader);
      }
      configs.reconcile(k.tablet(), uuid, r, leader);
    }
  }

  /** One catalog read for the whole report. */
  private Map<String, Known> lookUp(String tsUuid, Set<String> ids) {
    return catalog.read(s -> {
      Map<String, Known> out = new HashMap<>();
      for (String id : ids) {
        SysTabletEntryPB t = s.tablet(id);
        String reason = null;
        if (t == null) {
          reason = "tablet " + id + " is not in the catalog";
        } else if (s.tableById(t.getTableId()) == null) {
          reason = "table " + t.getTableId() + " of tablet " + id + " was deleted";
        } else if (t.getReplicasList().stream().noneMatch(p -> p.getUuid().equals(tsUuid))) {
          reason = "tablet " + id + " has no replica on tablet server " + tsUuid;
        }
        out.put(id, new Known(t, reason));
      }
      return out;
    });
  }

  void sendDelete(String tsUuid, HostPort addr, String tabletId, String reason) {
    LOG.info("deleting tablet {} on tablet server {}: {}", tabletId, tsUuid, reason);
    admin.deleteTablet(addr, tabletId, reason).whenComplete((v, t) -> {
      if (t != null) {
        // Fine: the next report from that tserver triggers another attempt.
        LOG.info("DeleteTablet {} on tablet server {} failed: {}", tabletId, tsUuid,
            t.getMessage());
      }
    });
  }
}
