package io.nyala.tserver.replica;

import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The startup garbage collection of blocks no superblock references, guarded so that it never
 * deletes blind (see docs/data-safety.md, "File systems"). A crash between a block commit and the
 * superblock write leaves a few such blocks; many of them mean that metadata is missing, not
 * that the blocks are garbage. So it deletes nothing when the tablet metadata dir is new or empty
 * while blocks exist, and above {@link #MAX_SHARE_PERCENT} % of the blocks (and more than
 * {@link #FEW_BLOCKS}) it only reports what it would delete, unless the operator allowed it
 * ({@code --orphan_block_gc_allow_mass_delete}).
 */
final class OrphanBlockGc {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanBlockGc.class);
  static final int MAX_SHARE_PERCENT = 10;
  static final int FEW_BLOCKS = 32;
  private static final int SAMPLE = 10;

  /** What one run did: blocks deleted, and orphans kept because the guard refused. */
  record Outcome(int deleted, int kept) {}

  private OrphanBlockGc() {}

  /**
   * Deletes the blocks of {@code blocks} not in {@code referenced}, unless the guard refuses.
   * {@code metadataMissing} says the metadata dir was new or held no tablet at this start;
   * {@code where} names the metadata dirs for the log.
   */
  static Outcome run(BlockManager blocks, Set<BlockId> referenced, boolean metadataMissing,
      boolean allowMassDelete, String where) {
    Set<BlockId> all = blocks.blockIds();
    List<BlockId> orphans = new ArrayList<>();
    for (BlockId b : all) {
      if (!referenced.contains(b)) {
        orphans.add(b);
      }
    }
    if (orphans.isEmpty()) {
      return new Outcome(0, 0);
    }
    String refusal = null;
    if (metadataMissing) {
      refusal = "the tablet metadata dir is new or empty while " + all.size() + " blocks exist"
          + " (a wiped or replaced WAL dir?)";
    } else if (!allowMassDelete && isMass(orphans.size(), all.size())) {
      refusal = String.format("that is more than %d%% of the blocks (and more than %d): "
          + "metadata may be missing", MAX_SHARE_PERCENT, FEW_BLOCKS);
    }
    if (refusal != null) {
      LOG.error("startup orphan-block GC: {} of {} blocks are referenced by no superblock; NOT "
          + "deleting them: {}. Sample: {}. Check the tablet metadata and superblocks in {}; "
          + "once sure they are complete, restart with --orphan_block_gc_allow_mass_delete to "
          + "delete them", orphans.size(), all.size(), refusal,
          orphans.subList(0, Math.min(SAMPLE, orphans.size())), where);
      return new Outcome(0, orphans.size());
    }
    BlockManager.DeletionTransaction del = blocks.newDeletion();
    orphans.forEach(del::add);
    del.commit();
    LOG.info("deleted {} orphaned blocks (of {})", orphans.size(), all.size());
    return new Outcome(orphans.size(), 0);
  }

  static boolean isMass(int orphans, int total) {
    return orphans > FEW_BLOCKS && orphans * 100L > (long) total * MAX_SHARE_PERCENT;
  }
}
