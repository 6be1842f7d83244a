package io.nyala.tserver.tablet.image;

import io.nyala.common.NyalaException;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.Superblock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The block-based store's {@link TabletImage}: the manifest is its superblock (plaintext, as
 * {@link Superblock#encode()} frames it) and the items are the blocks the superblock lists, by
 * block id. The blocks are pinned by a {@link BlockTabletStore.DurableSnapshot} (no compaction
 * or flush deletes them) until the image is closed; they are read through the block manager, so
 * their bytes are plaintext whatever the source server's encryption.
 */
public final class BlockImage implements TabletImage {
  private final BlockTabletStore.DurableSnapshot snapshot;
  private final byte[] manifest;
  /** Item id → its block, opened once; read concurrently (readable blocks are thread-safe). */
  private final Map<String, BlockManager.ReadableBlock> blocks;
  private final Runnable onClose;
  /** Guarded by this object's monitor: the pin is released once. */
  private boolean closed;

  private BlockImage(BlockTabletStore.DurableSnapshot snapshot,
      Map<String, BlockManager.ReadableBlock> blocks, Runnable onClose) {
    this.snapshot = snapshot;
    this.manifest = snapshot.superblock().encode();
    this.blocks = blocks;
    this.onClose = onClose;
  }

  /**
   * The image of {@code snapshot} (whose layers it then owns and releases at close), read from
   * {@code bm}; {@code onClose} runs once when the image is closed (it releases the log pin).
   */
  public static BlockImage open(BlockTabletStore.DurableSnapshot snapshot, BlockManager bm,
      Runnable onClose) {
    try {
      Map<String, BlockManager.ReadableBlock> open = new LinkedHashMap<>();
      for (BlockId id : snapshot.superblock().allBlocks()) {
        open.put(id.toString(), bm.openBlock(id));
      }
      return new BlockImage(snapshot, open, onClose);
    } catch (RuntimeException e) {
      snapshot.close();
      onClose.run();
      throw e;
    }
  }

  @Override
  public long lastIndex() {
    return snapshot.superblock().durableIndex();
  }

  @Override
  public long lastTerm() {
    return snapshot.superblock().durableTerm();
  }

  @Override
  public byte[] manifest() {
    return manifest.clone();
  }

  @Override
  public List<Item> items() {
    List<Item> out = new ArrayList<>(blocks.size());
    blocks.forEach((id, b) -> out.add(new Item(id, b.size())));
    return out;
  }

  @Override
  public int read(String itemId, long offset, byte[] buf, int bufOffset, int length) {
    BlockManager.ReadableBlock b = blocks.get(itemId);
    if (b == null) {
      throw NyalaException.notFound("tablet image item '%s' not found: the image holds blocks %s",
          itemId, blocks.keySet());
    }
    if (offset < 0) {
      throw NyalaException.invalidArgument("negative offset %d in item '%s'", offset, itemId);
    }
    if (offset >= b.size()) {
      return 0;
    }
    int n = (int) Math.min(length, b.size() - offset);
    b.read(offset, buf, bufOffset, n);
    return n;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      snapshot.close();
      onClose.run();
    }
  }
}
