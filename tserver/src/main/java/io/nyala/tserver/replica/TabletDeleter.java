package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.DurableDirs;
import io.nyala.common.env.Env;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes a replica in the order that makes a crash safe (docs/architecture.md, "Replica
 * lifecycle"): metadata marked DELETING, then the Raft group and its directory, then the store's
 * blocks and superblock, and the metadata file last. A start finds a DELETING metadata file and
 * finishes the job ({@link #finish}).
 */
final class TabletDeleter {
  private static final Logger LOG = LoggerFactory.getLogger(TabletDeleter.class);

  private final HostedReplicas replicas;
  private final TabletMetadataFiles metadata;
  private final RaftGroups groups;
  private final ReplicaFactory factory;
  private final Env env;
  private final BlockManager blocks;
  private final TabletStateMachine.Listener listener;

  TabletDeleter(HostedReplicas replicas, TabletMetadataFiles metadata, RaftGroups groups,
      ReplicaFactory factory, Env env, BlockManager blocks, TabletStateMachine.Listener listener) {
    this.replicas = replicas;
    this.metadata = metadata;
    this.groups = groups;
    this.factory = factory;
    this.env = env;
    this.blocks = blocks;
    this.listener = listener;
  }

  /**
   * Deletes the replica of {@code tabletId} (caller serialises deletes and creates) and returns
   * how long each step took.
   */
  DeleteTimings delete(String tabletId, String reason) {
    TabletReplica r = replicas.get(tabletId);
    DeleteTimings.Clock clock = new DeleteTimings.Clock();
    synchronized (r) {
      if (r.state() == ReplicaState.DELETING) {
        throw NyalaException.notFound("tablet %s not found (being deleted)", tabletId);
      }
      metadata.persistDeleting(r);
      r.transition(ReplicaState.DELETING);
    }
    TabletStateMachine copying = r.stateMachineOrNull();
    if (copying != null) {
      // Before the store is destroyed: a copy finishing later would install a superblock.
      copying.cancelCopies("tablet " + tabletId + " is being deleted here");
    }
    DeleteTimings.Step mark = clock.lap();
    try {
      groups.remove(r.groupId());
    } catch (NyalaException e) {
      if (!(e.getCause() instanceof GroupMismatchException)) {
        throw e;
      }
    }
    DeleteTimings.Step group = clock.lap();
    destroyStore(r);
    DeleteTimings.Step blocksStep = clock.lap();
    // Also covers a group Ratis never loaded, or one hibernated.
    groups.deleteGroupDirs(r.groupId());
    metadata.delete(tabletId);
    replicas.remove(tabletId);
    DeleteTimings d = new DeleteTimings(mark, group, blocksStep, clock.lap());
    LOG.info("deleted tablet {} ({}): {}", tabletId, reason.isEmpty() ? "no reason given" : reason,
        d);
    listener.leaderChanged(tabletId);
    return d;
  }

  /**
   * Finishes a delete a crash interrupted, at a start before Ratis exists: {@code meta}, read
   * from {@code file}, is DELETING.
   */
  void finish(TabletMetadataPB meta, Path file) throws IOException {
    LOG.info("finishing the deletion of tablet {}", meta.getTabletId());
    BlockTabletStore.destroy(env, blocks, factory.superblockFile(meta.getTabletId()));
    groups.deleteGroupDirs(RaftIds.groupId(meta.getTabletId()));
    Files.deleteIfExists(file);
    DurableDirs.sync(metadata.dir());
  }

  /**
   * The store's blocks and superblock; its group is gone, so nothing applies or flushes. The
   * open store (if Ratis ever opened the group here) is told first, so that layers its readers
   * release later do not delete blocks again; the static path also covers a never-opened store.
   */
  private void destroyStore(TabletReplica r) {
    TabletStateMachine sm = r.stateMachineOrNull();
    if (sm != null && sm.store() != null) {
      sm.store().destroy();
    }
    BlockTabletStore cold = r.cold.takeForWake(); // a cold replica's scans may have opened one
    if (cold != null) {
      cold.destroy();
    }
    BlockTabletStore.destroy(env, blocks, factory.superblockFile(r.tabletId()));
  }
}
