package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
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
import java.util.LinkedHashMap;
import java.util.List;
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
 *
 * <p>A tablet server re-sends a replica's report only when it changed, so a verdict is not
 * final: a replica reported while still a member, or before any committed configuration proved
 * its exclusion, is looked at again whenever its tablet's catalog entry changes
 * ({@link #tabletChanged}, {@link #recheck}), and a delete that did not arrive is retried at
 * the server's next heartbeat ({@link UndecidedReplicas}).
 */
final class TabletReportProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(TabletReportProcessor.class);

  /** What the catalog says of one reported replica. */
  private enum Verdict { MEMBER, UNKNOWN, DROPPED, EXCLUDED, UNPROVEN }

  private record Known(SysTabletEntryPB tablet, Verdict verdict, String reason) {}

  /** A replica of a tablet the catalog does not know, as reported by one tserver. */
  record UnknownReplica(String tabletId, String tsUuid) {}

  /** A reported replica to look at again; {@code copying}: a tablet copy into it runs. */
  private record Reported(String tabletId, String tsUuid, boolean copying) {}

  private final SysCatalog catalog;
  private final ReplicaReports reports;
  private final TabletCreator creator;
  private final TSAdminClient admin;
  private final ConfigReconciler configs;
  private final TSManager tsManager;
  private final UndecidedReplicas undecided = new UndecidedReplicas();
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
    this.tsManager = tsManager;
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
    undecided.heartbeatFrom(uuid);
    Set<String> reportedIds = new HashSet<>();
    report.getUpdatedTabletsList().forEach(r -> reportedIds.add(r.getTabletId()));
    if (!report.getIsIncremental()) {
      reports.retainOnly(uuid, reportedIds);
      undecided.retainOnly(uuid, reportedIds);
      unknown.removeIf(u -> u.tsUuid().equals(uuid) && !reportedIds.contains(u.tabletId()));
    }
    report.getRemovedTabletIdsList().forEach(id -> {
      reports.remove(uuid, id);
      undecided.release(id, uuid);
      unknown.remove(new UnknownReplica(id, uuid));
    });
    Map<String, Known> known = lookUp(uuid, reportedIds);
    for (ReportedTabletPB r : report.getUpdatedTabletsList()) {
      Known k = known.get(r.getTabletId());
      if (k.verdict() != Verdict.MEMBER) {
        notAMember(ts, r, k);
        continue;
      }
      undecided.release(r.getTabletId(), uuid);
      ReplicaReports.Leader leader = reports.update(uuid, r);
      if (k.tablet().getState() == SysTabletStatePB.SYS_TABLET_CREATING) {
        creator.promoteIfUp(k.tablet());
      }
      configs.reconcile(k.tablet(), uuid, r, leader);
    }
    changedSince(known);
  }

  /**
   * A catalog change applied between this report's verdicts and their recording may have been
   * looked at before the replica was recorded: such tablets are looked at again.
   */
  private void changedSince(Map<String, Known> known) {
    catalog.read(s -> {
      known.forEach((id, k) -> {
        if (k.tablet() != null && s.tablet(id) != k.tablet()) {
          undecided.changed(id);
        }
      });
      return null;
    });
  }

  /**
   * Called (on the catalog's apply thread) when a tablet's catalog entry changed: records the
   * id, nothing more. It must not ask Ratis anything, such as whether this master leads: while
   * the master stops, Ratis waits for this thread to end and a call into Ratis could wait for
   * the stop. On a follower the set only collects ids (at most one per tablet); it is cleared
   * when this master becomes leader, which starts from full reports, and only the leader's
   * background pass drains it.
   */
  void tabletChanged(String tabletId) {
    undecided.changed(tabletId);
  }

  /**
   * Looks again at every replica reported for the tablets whose catalog entry changed since the
   * last call (and at replicas whose delete is retried): one that is no longer a member is
   * deleted under the same rules as on a report. Runs on the master's background thread; the
   * work is proportional to the replicas of the changed tablets only.
   */
  void recheck() {
    List<String> ids = undecided.drainChanged();
    if (ids.isEmpty()) {
      return;
    }
    List<Reported> replicas = reportedReplicas(ids);
    Map<Reported, Known> verdicts = catalog.read(s -> {
      Map<Reported, Known> out = new LinkedHashMap<>();
      for (Reported r : replicas) {
        out.put(r, verdict(s, r.tsUuid(), r.tabletId()));
      }
      return out;
    });
    verdicts.forEach((r, k) -> {
      TSDescriptor ts = tsManager.get(r.tsUuid());
      if (k.verdict() == Verdict.MEMBER) {
        undecided.release(r.tabletId(), r.tsUuid());
      } else if (ts != null) {
        decide(ts, r.tabletId(), r.copying(), k);
      }
    });
  }

  /** The replicas last reported, or held undecided, for {@code ids}. */
  private List<Reported> reportedReplicas(List<String> ids) {
    Map<String, Reported> out = new LinkedHashMap<>();
    for (String id : ids) {
      reports.replicasOf(id).forEach((u, st) ->
          out.put(id + "/" + u, new Reported(id, u, st.copying())));
      undecided.of(id).forEach((u, copying) ->
          out.putIfAbsent(id + "/" + u, new Reported(id, u, copying)));
    }
    return List.copyOf(out.values());
  }

  /** Forgets what is held: a new leadership starts from fresh reports. */
  void clear() {
    undecided.clear();
  }

  private void notAMember(TSDescriptor ts, ReportedTabletPB r, Known k) {
    String uuid = ts.uuid();
    String id = r.getTabletId();
    if (k.verdict() == Verdict.UNKNOWN) {
      undecided.release(id, uuid);
      if (unknown.add(new UnknownReplica(id, uuid))) {
        LOG.warn("tablet server {} reports tablet {}, which this master's catalog does not "
            + "know: leaving it alone (if the catalog was lost or this tablet server belongs "
            + "to another cluster, restore the catalog or point it at its own masters)",
            uuid, id);
      }
      return;
    }
    if (k.verdict() == Verdict.EXCLUDED && isJoiner(id, uuid, r.getTabletCopyInProgress())) {
      reports.updateOutsider(uuid, r);
    }
    decide(ts, id, r.getTabletCopyInProgress(), k);
  }

  private boolean isJoiner(String id, String uuid, boolean copying) {
    return joining.test(id, uuid) || copying;
  }

  /**
   * Acts on a verdict other than MEMBER: deletes what the catalog positively says is gone, and
   * holds the rest undecided until its tablet's catalog entry changes.
   */
  private void decide(TSDescriptor ts, String id, boolean copying, Known k) {
    String uuid = ts.uuid();
    switch (k.verdict()) {
      case DROPPED -> {
        undecided.release(id, uuid);
        reports.remove(uuid, id);
        sendDelete(uuid, ts.rpcAddress(), DeleteTabletRequestPB.newBuilder().setTabletId(id)
            .setReason(k.reason()).setTabletDropped(true).build());
      }
      case EXCLUDED -> {
        if (isJoiner(id, uuid, copying)) {
          undecided.hold(id, uuid, copying);
          return; // a joiner: in the catalog once the leader commits the change
        }
        undecided.release(id, uuid);
        reports.remove(uuid, id);
        sendDelete(uuid, ts.rpcAddress(), DeleteTabletRequestPB.newBuilder().setTabletId(id)
            .setReason(k.reason()).setCasConfigIndex(k.tablet().getConfigIndex()).build());
      }
      case UNPROVEN -> {
        undecided.hold(id, uuid, copying);
        LOG.debug("tablet {} on {}: {}", id, uuid, k.reason());
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

  /**
   * Sends a positive delete (a tombstone, or an exclusion with its configuration index). If it
   * does not succeed the replica is held undecided: looked at again when its tablet's catalog
   * entry changes, and, unless the tserver refused it, when the tserver heartbeats again.
   */
  void sendDelete(String tsUuid, HostPort addr, DeleteTabletRequestPB req) {
    String id = req.getTabletId();
    LOG.info("deleting tablet {} on tablet server {}: {}", id, tsUuid, req.getReason());
    admin.deleteTablet(addr, req).whenComplete((v, t) -> {
      if (t == null) {
        return;
      }
      NyalaException e = NyalaException.from(t);
      if (e.code() == StatusCode.NOT_FOUND) {
        return; // the replica is gone already
      }
      undecided.hold(id, tsUuid, false);
      if (e.code() != StatusCode.ILLEGAL_STATE) {
        undecided.retryAtHeartbeat(tsUuid, id);
      }
      LOG.info("DeleteTablet {} on tablet server {} failed: {}", id, tsUuid, e.getMessage());
    });
  }
}
