package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A creation transaction of the log block manager. Blocks are buffered until commit so that
 * the whole transaction is written, synced and recorded as one group (a simplification: large
 * blocks cost heap until commit; streaming them to the data file is left for issue 6).
 */
final class Creation implements BlockManager.CreationTransaction {
  /** A block being written. */
  static final class Block implements BlockManager.WritableBlock {
    private final BlockId id;
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
    private boolean finalized;

    Block(BlockId id) {
      this.id = id;
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
      buf.write(b, off, len);
    }

    @Override
    public void finalizeBlock() {
      finalized = true;
    }

    byte[] bytes() {
      return buf.toByteArray();
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
    Block b = new Block(lbm.nextId());
    blocks.add(b);
    return b;
  }

  @Override
  public List<BlockId> commit() {
    if (done) {
      throw NyalaException.illegalState("creation transaction already closed");
    }
    done = true;
    for (Block b : blocks) {
      if (!b.finalized) {
        throw NyalaException.illegalState("block %s: commit before finalize", b.id);
      }
    }
    return blocks.isEmpty() ? List.of() : lbm.commitBlocks(blocks);
  }

  @Override
  public void close() {
    done = true;
  }
}
