package io.nyala.master.catalog;

import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adopts a RUNNING tablet's Raft configuration into the catalog when its leader reports one that
 * differs from the catalog's replica list (a replacement committed, even if the master never saw
 * the answer to its ChangeConfig). Only the reported leader's view counts, and only when every
 * peer is a registered tserver; one catalog write per tablet at a time. The configuration's
 * committed index is recorded with it: a replica outside the list is deleted only with that
 * index as compare-and-set (docs/data-safety.md, "Deletes").
 *
 * <p>A hibernated tablet has no leader, but its group closed only once every voter had applied
 * everything (docs/dense-nodes.md), so the configuration a HIBERNATED replica reports is
 * committed. It is taken when the replica closed at the tablet's hibernation term (not a
 * straggler from an earlier sleep) and its index is above the catalog's, so a stale report can
 * never move the catalog back.
 */
final class ConfigReconciler {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigReconciler.class);

  private final SysCatalog catalog;
  private final TSManager tsManager;
  private final ReplicaReports reports;
  private final Set<String> writing = ConcurrentHashMap.newKeySet();

  ConfigReconciler(SysCatalog catalog, TSManager tsManager, ReplicaReports reports) {
    this.catalog = catalog;
    this.tsManager = tsManager;
    this.reports = reports;
  }

  void reconcile(SysTabletEntryPB tablet, String reporter, ReportedTabletPB r,
      ReplicaReports.Leader leader) {
    if (!(leads(reporter, r, leader) || closedCommitted(tablet, r))
        || r.getConfigPeerUuidsCount() == 0
        || tablet.getState() != SysTabletStatePB.SYS_TABLET_RUNNING) {
      return;
    }
    Set<String> listed = new HashSet<>();
    tablet.getReplicasList().forEach(p -> listed.add(p.getUuid()));
    boolean samePeers = listed.equals(new HashSet<>(r.getConfigPeerUuidsList()));
    // Same peers at a later index prove nothing new: keep the catalog write to real changes.
    if (samePeers && (tablet.getConfigIndex() > 0 || r.getCommittedConfigIndex() <= 0)) {
      return;
    }
    List<RaftPeerPB> peers = new ArrayList<>();
    for (String uuid : r.getConfigPeerUuidsList()) {
      TSDescriptor d = tsManager.get(uuid);
      if (d == null) {
        return; // not a tserver this master knows: wait until it registers
      }
      peers.add(RaftPeerPB.newBuilder().setUuid(uuid)
          .setRpcAddress(d.registration().getRpcAddress())
          .setRaftAddress(d.registration().getRaftAddress()).build());
    }
    if (!writing.add(tablet.getTabletId())) {
      return;
    }
    write(tablet, r, peers, listed);
  }

  private static boolean leads(String reporter, ReportedTabletPB r, ReplicaReports.Leader l) {
    return r.getRole() == RaftRolePB.LEADER && l != null && l.uuid().equals(reporter);
  }

  /** A HIBERNATED replica's configuration, newer than the catalog's, from the last sleep. */
  private boolean closedCommitted(SysTabletEntryPB tablet, ReportedTabletPB r) {
    long closedAt = reports.hibernatedAt(tablet.getTabletId());
    return r.getState() == TabletStatePB.HIBERNATED && closedAt >= 0
        && r.getTerm() >= closedAt && r.getCommittedConfigIndex() > tablet.getConfigIndex();
  }

  private void write(SysTabletEntryPB tablet, ReportedTabletPB r, List<RaftPeerPB> peers,
      Set<String> listed) {
    String id = tablet.getTabletId();
    SysTabletEntryPB updated = tablet.toBuilder().clearReplicas().addAllReplicas(peers)
        .setConfigIndex(r.getCommittedConfigIndex()).build();
    catalog.write(SysCatalogBatchPB.newBuilder()
            .addOps(SysCatalogOpPB.newBuilder().setPutTablet(updated)).build())
        .whenComplete((v, t) -> {
          writing.remove(id);
          if (t != null) {
            LOG.info("could not record tablet {}'s configuration {}: {}", id,
                r.getConfigPeerUuidsList(), t.getMessage());
          } else {
            LOG.info("tablet {}: catalog now lists the reported configuration {} at index {} "
                + "(was {})", id, r.getConfigPeerUuidsList(), r.getCommittedConfigIndex(), listed);
          }
        });
  }
}
