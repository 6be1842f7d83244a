package io.nyala.tserver.fs;

import java.util.List;
import java.util.Set;

/**
 * Stores immutable blocks of bytes. Blocks are written in a {@link CreationTransaction} whose
 * {@link CreationTransaction#commit() commit} makes all of them durable at once (one fsync per
 * touched file group), read by id, and removed in a {@link DeletionTransaction}. Thread-safe.
 */
public interface BlockManager extends AutoCloseable {
  /** Starts a creation transaction. */
  CreationTransaction newCreation();

  /** Starts a deletion transaction. */
  DeletionTransaction newDeletion();

  /** Opens a committed block; NOT_FOUND if it does not exist (or was deleted). */
  ReadableBlock openBlock(BlockId id);

  /** The ids of all live blocks (a copy: costs as much as the server has blocks). */
  Set<BlockId> blockIds();

  /** Whether {@code id} is a live (committed, not deleted) block. */
  boolean contains(BlockId id);

  /** A snapshot of the metrics. */
  BlockManagerMetrics metrics();

  /** What the last open found and repaired. */
  StartupReport startupReport();

  /** Waits for background work (hole punching) and releases files. */
  @Override
  void close();

  /** Blocks being written; none is visible until {@link #commit()}. Not thread-safe. */
  interface CreationTransaction extends AutoCloseable {
    /** A new empty block with a fresh id. */
    WritableBlock create();

    /** Makes every finalized block of this transaction durable and visible. */
    List<BlockId> commit();

    /** Abandons uncommitted blocks (their ids stay used). */
    @Override
    void close();
  }

  /**
   * A block being written. Appends go to disk as they come (no block is held in memory), but
   * nothing is durable or visible before the transaction commits.
   */
  interface WritableBlock {
    BlockId id();

    void append(byte[] b, int off, int len);

    default void append(byte[] b) {
      append(b, 0, b.length);
    }

    /**
     * No more appends. Releases what appending held (the log block manager's container, which
     * the next block may then use); the block becomes durable at commit.
     */
    void finalizeBlock();
  }

  /** A committed block opened for reads. */
  interface ReadableBlock {
    BlockId id();

    long size();

    /** Reads exactly {@code len} bytes at {@code offset} within the block. */
    void read(long offset, byte[] b, int off, int len);

    default byte[] readAll() {
      if (size() > Integer.MAX_VALUE - 16) {
        throw io.nyala.common.NyalaException.corruption(
            "block %s: size %d is too large to read whole", id(), size());
      }
      byte[] b = new byte[Math.toIntExact(size())];
      read(0, b, 0, b.length);
      return b;
    }
  }

  /** Blocks to delete; NOT_FOUND at commit for an id that is not live. Not thread-safe. */
  interface DeletionTransaction {
    void add(BlockId id);

    /** Deletes durably; the space is reclaimed in the background. Returns the deleted ids. */
    List<BlockId> commit();
  }
}
