package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.tablet.TabletStore;
import io.nyala.tserver.tablet.image.BlockImage;
import io.nyala.tserver.tablet.image.BlockImageInstaller;
import io.nyala.tserver.tablet.image.TabletImage;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link TabletStoreOpener}: a replica's {@link BlockTabletStore}, opened from its
 * superblock over the server's block manager; copy images are {@link BlockImage}s and copies are
 * installed by a {@link BlockImageInstaller}.
 */
public final class BlockStoreOpener implements TabletStoreOpener {
  private static final Logger LOG = LoggerFactory.getLogger(BlockStoreOpener.class);

  private final String tabletId;
  /** The schema the Raft log starts from: a store with no superblock yet begins with it. */
  private final Schema initialSchema;
  /** The door for the superblock (sensitive). */
  private final Env env;
  private final BlockManager blocks;
  private final Path superblockFile;
  /** The store opened last, or null (none yet, or the last open failed). */
  private volatile BlockTabletStore current;
  /**
   * A store already open at this replica's durable state, for the first {@link #open} to take
   * instead of reading the superblock again: the store a cold replica's scans opened
   * (docs/dense-nodes.md, "Reading a cold tablet without waking it"); null if none.
   */
  private BlockTabletStore adopt;

  public BlockStoreOpener(String tabletId, Schema initialSchema, Env env, BlockManager blocks,
      Path superblockFile) {
    this(tabletId, initialSchema, env, blocks, superblockFile, null);
  }

  /** {@code adopt}: a store open at the durable state for the first open to take, or null. */
  public BlockStoreOpener(String tabletId, Schema initialSchema, Env env, BlockManager blocks,
      Path superblockFile, BlockTabletStore adopt) {
    this.adopt = adopt;
    this.tabletId = tabletId;
    this.initialSchema = initialSchema;
    this.env = env;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
  }

  /**
   * The open store, typed for the server's maintenance and tools that use more than
   * {@link TabletStore}; null if none is open.
   */
  public BlockTabletStore store() {
    return current;
  }

  @Override
  public String source() {
    return "superblock " + superblockFile;
  }

  /** The old store (after a tablet copy) retires once the new one opened: blocks both list stay. */
  @Override
  public TabletStore open(HistoryRetention history, Consumer<NyalaException> onDamaged) {
    BlockTabletStore old = current;
    current = null;
    BlockTabletStore s = adopt;
    adopt = null;
    if (s != null && !s.isClosed()) {
      s.onDamaged(onDamaged);
      current = s;
      LOG.info("tablet {}: took over the store its cold scans opened at index {}", tabletId,
          s.durableIndex());
      return s;
    }
    s = BlockTabletStore.open(tabletId, initialSchema, env, blocks, superblockFile, history);
    s.onDamaged(onDamaged);
    current = s;
    if (old != null) {
      old.retire(new HashSet<>(s.durableState().allBlocks()));
    }
    LOG.info("tablet {}: opened store at index {} ({} rows, {} on-disk layers)", tabletId,
        s.durableIndex(), s.liveRowCount(), s.diskLayerCount());
    return s;
  }

  @Override
  public TermIndex durableTermIndex() {
    BlockTabletStore s = current;
    Superblock sb = s == null ? null : s.durableState();
    if (sb == null || sb.durableIndex() <= 0) {
      return null;
    }
    return TermIndex.valueOf(sb.durableTerm(), sb.durableIndex());
  }

  @Override
  public TabletImage openImage(Function<TermIndex, Runnable> pin) {
    BlockTabletStore s = current;
    if (s == null) {
      throw NyalaException.illegalState("tablet %s has no open store to copy", tabletId);
    }
    BlockTabletStore.DurableSnapshot snap = s.pinDurable();
    Superblock sb = snap.superblock();
    Runnable unpin = pin.apply(TermIndex.valueOf(sb.durableTerm(), sb.durableIndex()));
    return BlockImage.open(snap, blocks, unpin);
  }

  @Override
  public Installer newInstaller(Runnable beforeInstall) {
    BlockImageInstaller into = new BlockImageInstaller(env, blocks, superblockFile,
        beforeInstall);
    return new Installer(into, into::cancel);
  }
}
