package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.DurableDirs;
import io.nyala.common.env.Env;
import io.nyala.common.fs.AtomicFiles;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.Superblock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.ratis.protocol.RaftGroupId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a start finds on disk without tablet metadata: superblocks and blocks no tablet
 * references, Raft group dirs and groups Ratis opened for no tablet. Removed, except when the
 * metadata dir itself is new or empty: then everything would look orphaned, which is evidence
 * of lost metadata, not garbage, and it is kept (docs/data-safety.md, "File systems").
 */
final class OrphanCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanCleanup.class);

  private final HostedReplicas replicas;
  private final Env env;
  private final BlockManager blocks;
  private final Path metaDir;
  private final Path superblockDir;
  private final Path raftDir;
  /** Groups Ratis found on disk without metadata; removed once Ratis has started. */
  private final Set<RaftGroupId> orphanGroups = ConcurrentHashMap.newKeySet();
  /** Whether the metadata dir was new or without any tablet at load: nothing is an orphan. */
  private volatile boolean metadataMissing;
  /** {@code --orphan_block_gc_allow_mass_delete}. */
  private volatile boolean allowMassDelete;
  private volatile int blocksDeleted;
  private volatile int blocksKept;

  OrphanCleanup(HostedReplicas replicas, Env env, BlockManager blocks, Path metaDir,
      Path superblockDir, Path raftDir) {
    this.replicas = replicas;
    this.env = env;
    this.blocks = blocks;
    this.metaDir = metaDir;
    this.superblockDir = superblockDir;
    this.raftDir = raftDir;
  }

  void allowMassDelete(boolean allow) {
    this.allowMassDelete = allow;
  }

  /** Called by the load, before any sweep: whether the metadata dir was new or empty. */
  void metadataMissing(boolean missing) {
    this.metadataMissing = missing;
  }

  int blocksDeleted() {
    return blocksDeleted;
  }

  int blocksKept() {
    return blocksKept;
  }

  /** A group Ratis opened that has no tablet; {@link #removeOrphanGroups} removes it. */
  void orphanGroupFound(RaftGroupId gid) {
    orphanGroups.add(gid);
  }

  /** Removes the groups {@link #orphanGroupFound} noted, once Ratis runs. */
  void removeOrphanGroups(RaftGroups groups) {
    for (RaftGroupId gid : List.copyOf(orphanGroups)) {
      try {
        groups.remove(gid);
      } catch (RuntimeException e) {
        LOG.warn("cannot remove orphan Raft group {}: {}", gid, e.getMessage());
      }
      orphanGroups.remove(gid);
    }
  }

  /**
   * Deletes blocks no tablet's superblock references (left by a crash between a block commit and
   * the superblock write, or by an interrupted delete). Runs only when every superblock could be
   * read: a block of an unreadable one would look orphaned.
   */
  void deleteOrphanBlocks() {
    Set<BlockId> referenced = new HashSet<>();
    for (String name : env.listDir(superblockDir)) {
      Path f = superblockDir.resolve(name);
      if (name.endsWith(".tmp")) {
        TabletMetadataFiles.deleteDurably(f);
        continue;
      }
      if (!replicas.contains(name)) {
        if (metadataMissing) {
          // The metadata may be what is missing, not the tablet: keep its superblock.
          LOG.error("superblock {} has no tablet metadata, and the metadata dir {} is new or "
              + "empty: keeping it", f, metaDir);
        } else {
          LOG.warn("superblock {} has no tablet metadata; deleting it", f);
          TabletMetadataFiles.deleteDurably(f);
        }
        continue;
      }
      try {
        referenced.addAll(Superblock.read(env, f).allBlocks());
      } catch (RuntimeException e) {
        LOG.error("cannot read superblock {}; not deleting orphaned blocks: {}", f,
            e.getMessage());
        return;
      }
    }
    OrphanBlockGc.Outcome o = OrphanBlockGc.run(blocks, referenced, metadataMissing,
        allowMassDelete, metaDir + " and " + superblockDir);
    blocksDeleted = o.deleted();
    blocksKept = o.kept();
  }

  /** Orphan group directories Ratis would otherwise open (no metadata for them). */
  void removeOrphanGroupDirs() {
    if (!Files.isDirectory(raftDir)) {
      return;
    }
    try (Stream<Path> s = Files.list(raftDir)) {
      for (Path d : s.filter(Files::isDirectory).toList()) {
        UUID u;
        try {
          u = UUID.fromString(d.getFileName().toString());
        } catch (IllegalArgumentException e) {
          continue; // not a group directory
        }
        if (replicas.contains(RaftIds.hexOf(u))) {
          continue;
        }
        if (metadataMissing) {
          quarantine(d);
          continue;
        }
        LOG.warn("Raft group directory {} has no tablet metadata; removing it", d);
        AtomicFiles.deleteTree(d);
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot list " + raftDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Like the block GC, with no metadata at all every group would look orphaned: that is evidence
   * of lost metadata, not garbage. The group's log is moved out of Ratis' storage dir (which
   * Ratis would otherwise open, and this class then remove) and kept for the operator.
   */
  private void quarantine(Path groupDir) throws IOException {
    Path kept = raftDir.resolveSibling(TabletManager.ORPHANED_RAFT_DIR)
        .resolve(groupDir.getFileName());
    DurableDirs.create(kept.getParent());
    Files.move(groupDir, kept, StandardCopyOption.ATOMIC_MOVE);
    DurableDirs.sync(raftDir);
    DurableDirs.sync(kept.getParent());
    LOG.error("Raft group directory {} has no tablet metadata, and neither has any other group: "
        + "the tablet metadata dir {} is new or empty (a wiped or replaced WAL dir?). NOT "
        + "removing it: moved to {}", groupDir, metaDir, kept);
  }
}
