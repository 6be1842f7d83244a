package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.util.ArrayList;
import java.util.List;

/**
 * A creation transaction of the log block manager. Appends stream to the container's data
 * file: a block holds its container exclusively from {@link #create()} until
 * {@link Block#finalizeBlock()}, so its bytes are contiguous and no lock is taken per append
 * (as in Kudu). Commit makes the whole group durable with one data fsync and one metadata
 * fsync per touched container; a transaction closed without commit, or whose commit failed,
 * leaves no visible block, and its ranges are punched out in the background.
 */
final class Creation implements BlockManager.CreationTransaction {
  /** A block being written; its fields are touched by the transaction's thread only. */
  static final class Block implements BlockManager.WritableBlock {
    private final BlockId id;
    private final LogBlockManager lbm;
    final Container container;
    /** Logical offset of the block in the container's data file. */
    final long offset;
    long length;
    /**
     * Logical end of every byte a write was attempted at: a write that fails part-way may
     * still have put ciphertext there, so the container never hands those offsets out again.
     */
    long touchedEnd;
    boolean finalized;

    Block(BlockId id, LogBlockManager lbm, Container container) {
      this.id = id;
      this.lbm = lbm;
      this.container = container;
      this.offset = container.nextOffset;
      this.touchedEnd = offset;
    }

    /** Bytes from the block's offset that may hold its ciphertext. */
    long touchedLength() {
      return Math.max(length, touchedEnd - offset);
    }

    @Override
    public BlockId id() {
      return id;
    }

    @Override
    public void append(byte[] b, int off, int len) {
      if (finalized) {
        throw NyalaException.illegalState("block %s: append after finalize", id);
      }
      if (len > 0) {
        lbm.write(this, b, off, len);
        length += len;
      }
    }

    @Override
    public void finalizeBlock() {
      if (!finalized) {
        finalized = true;
        lbm.release(this);
      }
    }
  }

  private final LogBlockManager lbm;
  private final List<Block> blocks = new ArrayList<>();
  private boolean done;

  Creation(LogBlockManager lbm) {
    this.lbm = lbm;
  }

  @Override
  public BlockManager.WritableBlock create() {
    checkOpen();
    Block b = lbm.acquire();
    blocks.add(b);
    return b;
  }

  @Override
  public List<BlockId> commit() {
    checkOpen();
    for (Block b : blocks) {
      if (!b.finalized) {
        close();
        throw NyalaException.illegalState("block %s: commit before finalize: transaction of %d"
            + " blocks abandoned", b.id, blocks.size());
      }
    }
    done = true;
    if (blocks.isEmpty()) {
      return List.of();
    }
    try {
      return lbm.commitBlocks(blocks);
    } catch (RuntimeException e) {
      // A failed data sync or metadata append (docs/data-safety.md, "Disk faults"): no block
      // became visible, so all are abandoned, their ranges punched and their containers'
      // counts right, instead of holding space until a restart. A CREATE record that did
      // reach a disk names a block no superblock lists: the orphan GC at start deletes it.
      lbm.abandon(blocks);
      throw e;
    }
  }

  private void checkOpen() {
    if (done) {
      throw NyalaException.illegalState("creation transaction already closed");
    }
  }

  @Override
  public void close() {
    if (!done) {
      done = true;
      lbm.abandon(blocks);
    }
  }
}
