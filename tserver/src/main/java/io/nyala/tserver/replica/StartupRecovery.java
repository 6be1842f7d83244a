package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.DurableDirs;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the replicas back at a start, in two steps around Ratis' own start: {@link #load} reads
 * every tablet's metadata, finishes interrupted deletes, places group dirs and sweeps orphaned
 * blocks; {@link #start} then adds the groups a crash left un-added, opens RUNNING replicas and
 * takes FAILED ones out of Ratis. What cannot be read becomes a FAILED replica, reported and kept
 * (docs/data-safety.md, "Damage is contained").
 */
final class StartupRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(StartupRecovery.class);

  private final HostedReplicas replicas;
  private final TabletMetadataFiles metadata;
  private final ReplicaFactory factory;
  private final RaftGroups groups;
  private final TabletDeleter deleter;
  private final OrphanCleanup orphans;

  StartupRecovery(HostedReplicas replicas, TabletMetadataFiles metadata, ReplicaFactory factory,
      RaftGroups groups, TabletDeleter deleter, OrphanCleanup orphans) {
    this.replicas = replicas;
    this.metadata = metadata;
    this.factory = factory;
    this.groups = groups;
    this.deleter = deleter;
    this.orphans = orphans;
  }

  /** Step 1, before Ratis exists. */
  void load() {
    try {
      boolean metaDirExisted = Files.isDirectory(metadata.dir());
      List<Path> files = metadata.list();
      DurableDirs.create(factory.superblockDir());
      orphans.metadataMissing(!metaDirExisted || files.isEmpty());
      for (Path f : files) {
        TabletMetadataPB meta = readOrFail(f);
        if (meta == null) {
          continue;
        }
        if (meta.getDataState() == TabletDataStatePB.TABLET_DATA_DELETING) {
          deleter.finish(meta, f);
          continue;
        }
        TabletReplica r = factory.createOrFailed(meta, f);
        groups.placeGroupDir(r);
        replicas.put(r);
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read tablet metadata in " + metadata.dir() + ": "
          + e.getMessage(), e);
    }
    LOG.info("loaded metadata of {} tablets", replicas.count());
    orphans.deleteOrphanBlocks();
  }

  /**
   * The metadata in {@code f}; when it is damaged, a FAILED replica of the tablet the file is
   * named for takes its place and null is returned. The replica keeps the tablet's superblock,
   * Raft log and blocks from being taken for orphans. A file not named like a tablet is left
   * alone.
   */
  private TabletMetadataPB readOrFail(Path f) throws IOException {
    try {
      return metadata.read(f);
    } catch (NyalaException e) {
      String tabletId = f.getFileName().toString();
      try {
        RaftIds.groupId(tabletId);
      } catch (RuntimeException notATablet) {
        LOG.error("{} is not a tablet's metadata file and cannot be read; ignoring it: {}", f,
            e.detail());
        return null;
      }
      replicas.put(factory.unreadable(tabletId, e));
      return null;
    }
  }

  /** Step 2, after Ratis started: drops orphan groups, adds groups a crash left un-added. */
  void start(RaftServer server) {
    groups.attach(server);
    orphans.removeOrphanGroups(groups);
    Set<RaftGroupId> loaded = ConcurrentHashMap.newKeySet();
    server.getGroupIds().forEach(loaded::add);
    int cold = 0;
    for (TabletReplica r : replicas.all()) {
      if (r.failure() != null) {
        if (loaded.contains(r.groupId())) {
          groups.stopFailed(r);
        }
        continue;
      }
      if (r.state() == ReplicaState.HIBERNATED) {
        cold++; // reported as it is; opened when something needs it
        continue;
      }
      if (!loaded.contains(r.groupId())) {
        LOG.info("tablet {}: Raft group missing (crash during create?), adding it", r.tabletId());
        try {
          groups.add(r, true);
        } catch (RuntimeException e) {
          LOG.warn("tablet {}: cannot add its Raft group", r.tabletId(), e);
          r.markFailed(NyalaException.from(e));
          continue;
        }
      }
      r.openedOrFailed();
    }
    LOG.info("{} tablet replicas: {} hibernated (not opened)", replicas.count(), cold);
  }
}
