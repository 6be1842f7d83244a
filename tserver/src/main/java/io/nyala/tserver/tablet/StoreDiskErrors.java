package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.DiskFaults;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a flush or compaction that failed on the disk does to its tablet (docs/data-safety.md,
 * "Disk faults"). Either way nothing was recorded as durable: the superblock is written last, so
 * its durable index stays where it was, the rows stay in memory and in the Raft log, which is
 * not purged past that index.
 * <ul>
 *   <li>A full disk (ENOSPC): the operation fails and is retried by the next maintenance pass;
 *       the tablet keeps serving reads and writes (they are durable in the Raft log). The error
 *       is kept ({@link #diskFull()}) until a flush succeeds.
 *   <li>Any other I/O error (EIO on a block write or fsync, on the superblock): what was written
 *       there can no longer be trusted to reach the disk, so the replica is reported damaged and
 *       goes FAILED; the master re-replicates it from its healthy peers, which hold every
 *       acknowledged row.
 * </ul>
 * Thread-safe.
 */
final class StoreDiskErrors {
  private static final Logger LOG = LoggerFactory.getLogger(StoreDiskErrors.class);

  private final String tabletId;
  private final TabletBlocks blocks;
  /** The last full-disk error since the last flush that succeeded, or null. */
  private volatile NyalaException diskFull;

  StoreDiskErrors(String tabletId, TabletBlocks blocks) {
    this.tabletId = tabletId;
    this.blocks = blocks;
  }

  /** Classifies {@code e}, thrown by {@code what} ("flush", "compaction"); returns the error. */
  RuntimeException failed(String what, RuntimeException e) {
    NyalaException ne = NyalaException.from(e);
    if (ne.code() != StatusCode.IO_ERROR) {
      return e;
    }
    if (DiskFaults.isNoSpace(e)) {
      NyalaException why = new NyalaException(StatusCode.IO_ERROR, String.format(
          "tablet %s: %s failed, the disk is full: %s; its rows stay in memory and in the Raft "
          + "log until a flush succeeds", tabletId, what, ne.detail()), e);
      if (diskFull == null) {
        LOG.error("{}", why.detail());
      }
      diskFull = why;
      return why;
    }
    NyalaException why = new NyalaException(StatusCode.IO_ERROR, String.format(
        "tablet %s: %s failed on a disk error, so this replica can no longer make its data "
        + "durable: %s", tabletId, what, ne.detail()), e);
    blocks.reportDamage(why);
    return why;
  }

  /** A flush succeeded: whatever full disk there was has room again. */
  void flushed() {
    NyalaException was = diskFull;
    if (was != null) {
      diskFull = null;
      LOG.info("tablet {}: flushes resumed after a full disk", tabletId);
    }
  }

  /** The full-disk error that keeps this tablet's flushes failing, or null. */
  NyalaException diskFull() {
    return diskFull;
  }
}
