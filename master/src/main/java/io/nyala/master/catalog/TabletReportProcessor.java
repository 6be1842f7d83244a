package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletReportPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.master.tsmanager.TSAdminClient;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a tserver's tablet report: records replica states and leaders, promotes CREATING
 * tablets that have a leader, adopts a leader's changed configuration ({@link ConfigReconciler}),
 * and reconciles. A replica is deleted only when the catalog says so positively
 * (docs/data-safety.md, "Deletes"): a tombstone of its tablet or table, or a committed
 * configuration that excludes it, whose index the DeleteTablet carries as compare-and-set. A
 * tablet the catalog does not know is left alone: logged once and counted
 * ({@link #unknownReplicas}).
 */
final class TabletReportProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(TabletReportProcessor.class);

  /** What the catalog says of one reported replica. */
  private enum Verdict { MEMBER, UNKNOWN, DROPPED, EXCLUDED, UNPROVEN }

  private record Known(SysTabletEntryPB tablet, Verdict verdict, String reason) {}

  /** A replica of a tablet the catalog does not know, as reported by one tserver. */
  record UnknownReplica(String tabletId, String tsUuid) {}

  private final SysCatalog catalog;
  private final ReplicaReports reports;
  private final TabletCreator creator;
  private final TSAdminClient admin;
  private final ConfigReconciler configs;
  /** (tablet id, tserver uuid) of replicas joining a tablet: not strays though not listed. */
  private volatile BiPredicate<String, String> joining = (t, u) -> false;
  private final Set<UnknownReplica> unknown = ConcurrentHashMap.newKeySet();

  TabletReportProcessor(SysCatalog catalog, ReplicaReports reports, TabletCreator creator,
      TSAdminClient admin, TSManager tsManager) {
    this.configs = new ConfigReconciler(catalog, tsManager, reports);
    this.catalog = catalog;
    this.reports = reports;
    this.creator = creator;
    this.admin = admin;
  }

  void setJoining(BiPredicate<String, String> joining) {
    this.joining = joining;
  }

  /** Replicas of tablets the catalog does not know, last reported (for metrics and pages). */
  Set<UnknownReplica> unknownReplicas() {
    return Set.copyOf(unknown);
  }

  void process(TSDescriptor ts, TabletReportPB report) {
    String uuid = ts.uuid();
    Set<String> reportedIds = new HashSet<>();
    report.getUpdatedTabletsList().forEach(r -> reportedIds.add(r.getTabletId()));
    if (!report.getIsIncremental()) {
      reports.retainOnly(uuid, reportedIds);
      unknown.removeIf(u -> u.tsUuid().equals(uuid) && !reportedIds.contains(u.tabletId()));
    }
    report.getRemovedTabletIdsList().forEach(id -> {
      reports.remove(uuid, id);
      unknown.remove(new UnknownReplica(id, uuid));
    });
    Map<String, Known> known = lookUp(uuid, reportedIds);
    for (ReportedTabletPB r : report.getUpdatedTabletsList()) {
      Known k = known.get(r.getTabletId());
      if (k.verdict() != Verdict.MEMBER) {
        notAMember(ts, r, k);
        continue;
      }
      ReplicaReports.Leader leader = reports.update(uuid, r);
      if (k.tablet().getState() == SysTabletStatePB.SYS_TABLET_CREATING) {
        creator.promoteIfUp(k.tablet());
      }
      configs.reconcile(k.tablet(), uuid, r, leader);
    }
  }

  private void notAMember(TSDescriptor ts, ReportedTabletPB r, Known k) {
    String uuid = ts.uuid();
    String id = r.getTabletId();
    switch (k.verdict()) {
      case UNKNOWN -> {
        if (unknown.add(new UnknownReplica(id, uuid))) {
          LOG.warn("tablet server {} reports tablet {}, which this master's catalog does not "
              + "know: leaving it alone (if the catalog was lost or this tablet server belongs "
              + "to another cluster, restore the catalog or point it at its own masters)",
              uuid, id);
        }
      }
      case DROPPED -> {
        reports.remove(uuid, id);
        sendDelete(uuid, ts.rpcAddress(), DeleteTabletRequestPB.newBuilder().setTabletId(id)
            .setReason(k.reason()).setTabletDropped(true).build());
      }
      case EXCLUDED -> {
        if (joining.test(id, uuid) || r.getTabletCopyInProgress()) {
          reports.updateOutsider(uuid, r);
          return; // a joiner: in the catalog once the leader commits the change
        }
        reports.remove(uuid, id);
        sendDelete(uuid, ts.rpcAddress(), DeleteTabletRequestPB.newBuilder().setTabletId(id)
            .setReason(k.reason()).setCasConfigIndex(k.tablet().getConfigIndex()).build());
      }
      default -> LOG.debug("tablet {} on {}: {}", id, uuid, k.reason());
    }
  }

  /** One catalog read for the whole report. */
  private Map<String, Known> lookUp(String tsUuid, Set<String> ids) {
    return catalog.read(s -> {
      Map<String, Known> out = new HashMap<>();
      for (String id : ids) {
        out.put(id, verdict(s, tsUuid, id));
      }
      return out;
    });
  }

  private static Known verdict(CatalogState s, String tsUuid, String id) {
    SysTabletEntryPB t = s.tablet(id);
    if (t == null) {
      SysTabletEntryPB dead = s.deletedTablet(id);
      return dead != null
          ? new Known(dead, Verdict.DROPPED, "tablet " + id + " was deleted")
          : new Known(null, Verdict.UNKNOWN, "tablet " + id + " is not in the catalog");
    }
    if (s.tableById(t.getTableId()) == null) {
      return s.removedTable(t.getTableId()) != null
          ? new Known(t, Verdict.DROPPED, "table " + t.getTableId() + " of tablet " + id
              + " was deleted")
          : new Known(t, Verdict.UNKNOWN, "table " + t.getTableId() + " of tablet " + id
              + " is not in the catalog");
    }
    if (t.getReplicasList().stream().anyMatch(p -> p.getUuid().equals(tsUuid))) {
      return new Known(t, Verdict.MEMBER, null);
    }
    if (t.getConfigIndex() <= 0) {
      return new Known(t, Verdict.UNPROVEN, "tablet " + id + " lists no replica on " + tsUuid
          + " but no committed configuration of it was reported yet");
    }
    return new Known(t, Verdict.EXCLUDED, "tablet " + id + "'s committed configuration at index "
        + t.getConfigIndex() + " has no replica on tablet server " + tsUuid);
  }

  /** Sends a positive delete (a tombstone, or an exclusion with its configuration index). */
  void sendDelete(String tsUuid, HostPort addr, DeleteTabletRequestPB req) {
    LOG.info("deleting tablet {} on tablet server {}: {}", req.getTabletId(), tsUuid,
        req.getReason());
    admin.deleteTablet(addr, req).whenComplete((v, t) -> {
      if (t != null) {
        // Fine: the next report from that tserver triggers another attempt.
        LOG.info("DeleteTablet {} on tablet server {} failed: {}", req.getTabletId(), tsUuid,
            t.getMessage());
      }
    });
  }
}
