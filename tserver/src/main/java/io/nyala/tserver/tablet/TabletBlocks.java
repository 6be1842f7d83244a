package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.BlockManagerMetrics;
import io.nyala.tserver.fs.StartupReport;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One tablet's view of the server's block manager. A block its superblock lists that cannot be
 * opened or read (lost with its container, deleted, cut short) is damage to this tablet: the
 * read fails with CORRUPTION naming tablet, block and cause, and the damage hook marks the
 * replica FAILED (docs/data-safety.md, "Damage is contained"). Everything else passes through.
 */
final class TabletBlocks implements BlockManager {
  private final String tabletId;
  private final BlockManager blocks;
  private final Path superblockFile;
  /** Told of damage found at run time; set once the store is open. */
  private volatile Consumer<NyalaException> onDamaged = e -> { };

  TabletBlocks(String tabletId, BlockManager blocks, Path superblockFile) {
    this.tabletId = tabletId;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
  }

  void onDamaged(Consumer<NyalaException> hook) {
    this.onDamaged = hook;
  }

  /**
   * Reports damage found outside a read (a flush that failed on a disk error, see
   * {@link StoreDiskErrors}) to the hook, which marks the replica FAILED.
   */
  void reportDamage(NyalaException why) {
    onDamaged.accept(why);
  }

  /** The CORRUPTION a damaged block becomes; also reported to the hook. */
  private NyalaException damaged(BlockId id, RuntimeException e) {
    NyalaException cause = NyalaException.from(e);
    NyalaException why = new NyalaException(StatusCode.CORRUPTION, String.format(
        "tablet %s: block %s listed by superblock %s is missing or unreadable: %s", tabletId,
        id, superblockFile, cause.detail()), e);
    onDamaged.accept(why);
    return why;
  }

  /** Only a block's absence or a failed read is damage; a caller's bad range is not. */
  private static boolean isDamage(RuntimeException e) {
    return NyalaException.from(e).code() != StatusCode.INVALID_ARGUMENT;
  }

  @Override
  public ReadableBlock openBlock(BlockId id) {
    ReadableBlock b;
    try {
      b = blocks.openBlock(id);
    } catch (RuntimeException e) {
      throw isDamage(e) ? damaged(id, e) : e;
    }
    return new ReadableBlock() {
      @Override
      public BlockId id() {
        return id;
      }

      @Override
      public long size() {
        return b.size();
      }

      @Override
      public void read(long offset, byte[] buf, int off, int len) {
        try {
          b.read(offset, buf, off, len);
        } catch (RuntimeException e) {
          throw isDamage(e) ? damaged(id, e) : e;
        }
      }
    };
  }

  @Override
  public CreationTransaction newCreation() {
    return blocks.newCreation();
  }

  @Override
  public DeletionTransaction newDeletion() {
    return blocks.newDeletion();
  }

  @Override
  public Set<BlockId> blockIds() {
    return blocks.blockIds();
  }

  @Override
  public boolean contains(BlockId id) {
    return blocks.contains(id);
  }

  @Override
  public BlockManagerMetrics metrics() {
    return blocks.metrics();
  }

  @Override
  public StartupReport startupReport() {
    return blocks.startupReport();
  }

  /** The server's block manager is not this view's to close. */
  @Override
  public void close() {}
}
