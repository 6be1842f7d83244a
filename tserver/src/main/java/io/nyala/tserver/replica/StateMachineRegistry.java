package io.nyala.tserver.replica;

import io.nyala.common.consensus.RaftIds;
import io.nyala.tserver.consensus.TabletCopier;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.tablet.HistoryRetention;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives Ratis the state machine of each group it opens: a fresh {@link TabletStateMachine} of
 * the group's replica, set up with the server-wide copier and history retention. A group with no
 * replica is noted as an orphan; a FAILED replica's group gets an empty state machine and is
 * taken out of Ratis at start.
 */
final class StateMachineRegistry implements StateMachine.Registry {
  private static final Logger LOG = LoggerFactory.getLogger(StateMachineRegistry.class);

  private final HostedReplicas replicas;
  private final OrphanCleanup orphans;
  /** Given to every state machine: how a replica pulls the leader's image. */
  private volatile TabletCopier copier;
  /** Given to every state machine: how long its store keeps old row versions. */
  private volatile HistoryRetention history = HistoryRetention.NONE;
  /** {@code --fault_tablet_open_delay_ms}: 0 but in tests. */
  private volatile long faultOpenDelayMs;

  StateMachineRegistry(HostedReplicas replicas, OrphanCleanup orphans) {
    this.replicas = replicas;
    this.orphans = orphans;
  }

  void setCopier(TabletCopier c) {
    this.copier = c;
  }

  void setHistoryRetention(HistoryRetention h) {
    this.history = h;
  }

  HistoryRetention historyRetention() {
    return history;
  }

  void setFaultOpenDelayMs(long ms) {
    this.faultOpenDelayMs = ms;
  }

  @Override
  public StateMachine apply(RaftGroupId gid) {
    if (faultOpenDelayMs > 0) {
      try {
        Thread.sleep(faultOpenDelayMs); // Ratis calls this while it adds the group
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    TabletReplica r = replicas.find(RaftIds.tabletId(gid));
    if (r == null) {
      LOG.warn("Raft group {} has no tablet metadata; it will be removed", gid);
      orphans.orphanGroupFound(gid);
      return new BaseStateMachine();
    }
    if (r.failure() != null) {
      return new BaseStateMachine(); // not opened: start() takes the group out of Ratis
    }
    TabletStateMachine sm = r.newStateMachine();
    sm.setCopier(copier);
    sm.setHistoryRetention(history);
    return sm;
  }
}
