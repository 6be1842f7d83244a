package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.consensus.TabletStateMachine;
import java.io.IOException;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;

/**
 * What a replica tells others about itself: its report to the master, its line of ListTablets
 * and the status page, its view of its Raft configuration, and who leads it when a request only
 * a leader serves reaches a follower. Read from the replica, its
 * division and (when it is hibernated) its persisted state; never throws for a replica that is
 * not open, FAILED or cold.
 */
final class ReplicaReports {
  private ReplicaReports() {}

  /**
   * A HIBERNATED replica's report and what it was built from. Every heartbeat reports every
   * replica, and on a dense tablet server nearly all are cold and unchanged: the heartbeat
   * thread spent much of its time building their reports anew and comparing them with the last
   * ones sent (docs/dense-nodes.md, "Where a group start's time goes").
   */
  record ColdReport(TabletMetadataPB metadata, Schema schema, ReportedTabletPB report) {}

  /** See {@link TabletReplica#report}. */
  static ReportedTabletPB report(TabletReplica r, RaftServer server) {
    TabletMetadataPB m = r.metadata();
    TabletStateMachine copying = r.stateMachineOrNull();
    NyalaException f = r.failure();
    ColdReport cold = r.coldReport;
    if (cold != null && f == null && copying == null && cold.metadata() == m
        && cold.schema() == r.schema() && r.state() == ReplicaState.HIBERNATED) {
      return cold.report();
    }
    ReportedTabletPB.Builder b = ReportedTabletPB.newBuilder().setTabletId(r.tabletId());
    if (copying != null && copying.copyInProgress()) {
      b.setTabletCopyInProgress(true);
    }
    if (f != null) {
      return b.setState(TabletStatePB.FAILED).setError(f.toPb()).build();
    }
    Schema schema = r.schema();
    b.setSchemaVersion(schema.version());
    if (m.hasHibernated() && r.state() == ReplicaState.HIBERNATED) {
      HibernatedStatePB h = m.getHibernated();
      b.setState(TabletStatePB.HIBERNATED).setTerm(h.getTerm())
          .setCommittedConfigIndex(h.getConfigIndex());
      h.getPeersList().forEach(p -> b.addConfigPeerUuids(p.getUuid()));
      ReportedTabletPB built = b.build();
      if (copying == null) {
        r.coldReport = new ColdReport(m, schema, built);
      }
      return built;
    }
    RaftServer.Division d = divisionOrNull(r, server);
    TabletStateMachine sm = r.stateMachineOrNull();
    if (d == null || sm == null || !sm.isInitialized() || !d.getInfo().isAlive()) {
      return b.setState(TabletStatePB.BOOTSTRAPPING).build();
    }
    DivisionInfo info = d.getInfo();
    b.setState(TabletStatePB.RUNNING).setRole(role(info)).setTerm(info.getCurrentTerm());
    if (info.getLeaderId() != null) {
      b.setLeaderUuid(info.getLeaderId().toString());
    }
    RaftConfiguration conf = d.getRaftConf();
    for (RaftPeer p : conf.getCurrentPeers()) {
      b.addConfigPeerUuids(p.getId().toString());
    }
    if (conf.getPreviousPeers().isEmpty() && conf.getLogEntryIndex() > 0
        && conf.getLogEntryIndex() <= d.getRaftLog().getLastCommittedIndex()) {
      b.setCommittedConfigIndex(conf.getLogEntryIndex());
    }
    return b.build();
  }

  /** See {@link TabletReplica#configView}. */
  static TabletReplica.ConfigView configView(TabletReplica r, RaftServer server,
      String selfUuid) {
    RaftServer.Division d = divisionOrNull(r, server);
    TabletMetadataPB m = r.metadata();
    if (d == null && m.hasHibernated()) {
      HibernatedStatePB h = m.getHibernated();
      return new TabletReplica.ConfigView(h.getConfigIndex(),
          h.getPeersList().stream().anyMatch(p -> p.getUuid().equals(selfUuid)));
    }
    if (d == null) {
      return null;
    }
    RaftConfiguration conf = d.getRaftConf();
    RaftPeerId self = RaftIds.peerId(selfUuid);
    return new TabletReplica.ConfigView(conf.getLogEntryIndex(), conf.getPeer(self) != null);
  }

  /** See {@link TabletReplica#status}. */
  static ListTabletsResponsePB.StatusPB status(TabletReplica replica, RaftServer server) {
    ReportedTabletPB r = report(replica, server);
    TabletStateMachine sm = replica.stateMachineOrNull();
    TabletMetadataPB metadata = replica.metadata();
    ListTabletsResponsePB.StatusPB.Builder b = ListTabletsResponsePB.StatusPB.newBuilder()
        .setTabletId(replica.tabletId())
        .setTableId(metadata.getTableId())
        .setTableName(metadata.getTableName())
        .setPartition(metadata.getPartition())
        .setState(r.getState().name())
        .setRole(r.getRole())
        .setTerm(r.getTerm())
        .setLeaderUuid(r.getLeaderUuid());
    if (r.getState() == TabletStatePB.FAILED) {
      return b.setError(r.getError().getMessage()).build();
    }
    if (sm != null && sm.store() != null) {
      b.setLastAppliedIndex(sm.appliedIndex()).setEstimatedRows(sm.store().liveRowCount())
          .setOnDiskBytes(sm.store().onDiskBytes());
    } else if (r.getState() == TabletStatePB.HIBERNATED) {
      b.setLastAppliedIndex(metadata.getHibernated().getIndex())
          .setEstimatedRows(metadata.getHibernated().getLiveRows());
    }
    return b.build();
  }

  private static RaftServer.Division divisionOrNull(TabletReplica r, RaftServer server) {
    try {
      return server == null ? null : server.getDivision(r.groupId());
    } catch (IOException e) {
      return null;
    }
  }

  static RaftRolePB role(DivisionInfo info) {
    return switch (info.getCurrentRole()) {
      case LEADER -> RaftRolePB.LEADER;
      case FOLLOWER, CANDIDATE -> RaftRolePB.FOLLOWER;
      case LISTENER -> RaftRolePB.LEARNER;
      default -> RaftRolePB.UNKNOWN_ROLE;
    };
  }

  /** Fails with NOT_LEADER (and the leader's uuid and RPC address if known) unless leader. */
  static void checkLeader(String tabletId, RaftServer.Division d) {
    DivisionInfo info = d.getInfo();
    if (info.isLeader()) {
      return;
    }
    RaftPeerId leader = info.getLeaderId();
    RaftPeer peer = leader == null ? null : d.getRaftConf().getPeer(leader);
    throw NyalaException.notLeader("tablet " + tabletId + ": this replica is not the leader",
        leader == null ? "" : leader.toString(), RaftPeers.rpcAddress(peer));
  }
}
