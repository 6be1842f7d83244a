package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.consensus.RaftLogWorkers;
import io.nyala.tserver.consensus.TabletStateMachine;
import java.io.IOException;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the replicas' state machines report about them, acted on here: a replica whose data is
 * damaged, a division that closed, a schema an applied alter installed. These run on Ratis'
 * threads (an apply thread among them), so none waits or takes {@link TabletManager}'s lock.
 */
final class StateMachineEvents {
  private static final Logger LOG = LoggerFactory.getLogger(StateMachineEvents.class);

  private final HostedReplicas replicas;
  private final TabletMetadataFiles metadata;
  private final RaftGroups groups;
  private final TabletStateMachine.Listener listener;

  StateMachineEvents(HostedReplicas replicas, TabletMetadataFiles metadata, RaftGroups groups,
      TabletStateMachine.Listener listener) {
    this.replicas = replicas;
    this.metadata = metadata;
    this.groups = groups;
    this.listener = listener;
  }

  /**
   * A replica's data is damaged: it goes FAILED (reported to the master, which re-replicates it
   * from healthy peers) and its group leaves Ratis, its files kept, so that it neither votes nor
   * leads with data it does not have. Every other replica keeps serving (docs/data-safety.md,
   * "Damage is contained"). Never waits.
   */
  void failed(String tabletId, NyalaException why) {
    failed(tabletId, why, true);
  }

  /** {@code stopGroup}: false when its division is closing already (a removal would wait). */
  private void failed(String tabletId, NyalaException why, boolean stopGroup) {
    TabletReplica r = replicas.find(tabletId);
    if (r == null || !r.markFailed(why)) {
      return;
    }
    LOG.error("tablet {}: replica FAILED: {}", tabletId, why.detail());
    if (stopGroup && groups.server() != null) {
      groups.stopFailed(r); // else start() does it once Ratis runs
    }
    listener.leaderChanged(tabletId); // reports at once
  }

  /**
   * A replica's division closed its state machine. When the replica is being deleted or
   * hibernated, its log worker is ended now rather than at its next poll (see
   * {@link RaftLogWorkers}): the removal deletes that log, and would otherwise wait up to a
   * second for the thread. When nothing here asked for the close (see {@link #closedByRatis}),
   * the replica goes FAILED. Runs on the division's apply thread while a delete holds
   * {@link TabletManager}'s monitor: it must take no lock.
   */
  void closed(String tabletId, RaftGroupMemberId member) {
    TabletReplica r = replicas.find(tabletId);
    if (r == null) {
      return;
    }
    ReplicaState s = r.state();
    if (s == ReplicaState.DELETING || s == ReplicaState.HIBERNATING) {
      RaftLogWorkers.endForRemoval(member);
    } else if (s == ReplicaState.RUNNING && closedByRatis(member)) {
      failed(tabletId, NyalaException.ioError(String.format("tablet %s: its Raft group closed "
          + "without this server asking (Ratis closes it when its log worker or apply thread "
          + "fails, e.g. on a WAL disk error: see 'hit exception' in the server log), so this "
          + "replica no longer logs writes or votes", tabletId), null), false);
    }
  }

  /**
   * Whether Ratis closed the division because its log failed: the division is closing while the
   * server runs, this server is still in the group's configuration, and the division's log
   * worker is the thread closing it ({@link RaftLogWorkers#isClosingItsDivision}). Hibernation
   * and deletion change the replica's state first; a server stop closes the Raft server first;
   * a replica removed from its group (closed by Ratis, as a leader or as a candidate its peers
   * tell so) is deleted by the master: none of these fail it (docs/data-safety.md, "Disk
   * faults").
   */
  private boolean closedByRatis(RaftGroupMemberId member) {
    RaftServer server = groups.server();
    if (server == null || server.getLifeCycleState().isClosingOrClosed()) {
      return false;
    }
    try {
      RaftServer.Division d = server.getDivision(member.getGroupId());
      return !d.getInfo().isAlive() && d.getRaftConf().getPeer(member.getPeerId(),
          RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) != null
          && RaftLogWorkers.isClosingItsDivision(member);
    } catch (IOException | RuntimeException e) {
      return false; // removed from Ratis meanwhile: asked for
    }
  }

  /**
   * Persists a schema an applied ALTER_SCHEMA entry installed (and the new table name, unless
   * empty), so that reports and a restart see it. Runs on the tablet's apply thread, hence it
   * locks only the replica (a delete holding {@link TabletManager}'s monitor waits for that
   * thread). A version not newer than the persisted one, or a replica being deleted, is left
   * alone.
   */
  void schemaAltered(String tabletId, Schema schema, String newTableName) {
    TabletReplica r = replicas.find(tabletId);
    if (r != null && metadata.persistSchema(r, schema, newTableName)) {
      LOG.info("tablet {}: persisted schema version {}", tabletId, schema.version());
    }
  }
}
