package io.nyala.tserver.tablet.image;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.Superblock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs a {@link BlockImage} copied from another replica: every item becomes a NEW block of
 * this server's block manager (so it is encrypted under this server's key, under an id this
 * server allocated), committed item by item; {@link #install} then rewrites the manifest's block
 * ids to the new ones and writes it as this replica's superblock in one atomic replace through
 * {@link Env}. Until then nothing of the copy is the replica's state; the blocks of a copy that
 * aborts are deleted, and those of a crash are orphans the startup GC deletes.
 *
 * <p>{@link #cancel} (the tablet is being deleted here) may come from another thread at any
 * time: every step holds this object's monitor, so an install either finished before the
 * cancel (and the delete then removes what it wrote) or never happens; the blocks received so
 * far are deleted at once (docs/data-safety.md, "Damage is contained").
 */
public final class BlockImageInstaller implements TabletImageInstaller {
  private static final Logger LOG = LoggerFactory.getLogger(BlockImageInstaller.class);

  private final Env env;
  private final BlockManager blocks;
  private final Path superblockFile;
  /** Runs before the superblock is replaced: stops the current store's flushes (which write it). */
  private final Runnable beforeReplace;
  private Superblock image;
  /** Source block id → the block it was written as here (committed). */
  private final Map<String, BlockId> written = new HashMap<>();
  /** Source block id → its length, for the items in {@link #written}. */
  private final Map<String, Long> lengths = new HashMap<>();
  private Set<String> expected = Set.of();
  /** The item being received, its transaction and block, and how many bytes it has. */
  private String currentItem;
  private BlockManager.CreationTransaction txn;
  private BlockManager.WritableBlock block;
  private long received;
  private boolean installed;
  /** Why the copy was cancelled, or null; guarded by this object's monitor. */
  private String cancelled;

  public BlockImageInstaller(Env env, BlockManager blocks, Path superblockFile,
      Runnable beforeReplace) {
    this.env = env;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
    this.beforeReplace = beforeReplace;
  }

  @Override
  public synchronized void begin(byte[] manifest, long lastIndex, long lastTerm) {
    checkNotCancelled();
    Superblock sb = Superblock.decode(manifest, "tablet copy manifest");
    if (sb.durableIndex() != lastIndex || sb.durableTerm() != lastTerm) {
      throw NyalaException.invalidArgument("tablet copy manifest is at %d/%d, the session at %d/%d",
          sb.durableTerm(), sb.durableIndex(), lastTerm, lastIndex);
    }
    Set<String> next = new HashSet<>();
    sb.allBlocks().forEach(b -> next.add(b.toString()));
    if (image != null) {
      keepOnly(next);
    }
    image = sb;
    expected = next;
  }

  /**
   * A restart with a new image: keeps the committed items it lists too, drops the others and the
   * item in progress (the new image may list items in another order, and an item must be
   * received whole before the next one starts).
   */
  private void keepOnly(Set<String> items) {
    if (currentItem != null) {
      txn.close();
      currentItem = null;
      txn = null;
      block = null;
    }
    List<BlockId> drop = new ArrayList<>();
    for (String item : new ArrayList<>(written.keySet())) {
      if (!items.contains(item)) {
        drop.add(written.remove(item));
        lengths.remove(item);
      }
    }
    deleteQuietly(drop);
    LOG.info("tablet copy restarted with a new image: kept {} received blocks, dropped {}",
        written.size(), drop.size());
  }

  @Override
  public synchronized long received(String itemId) {
    if (itemId.equals(currentItem)) {
      return received;
    }
    return lengths.getOrDefault(itemId, 0L);
  }

  @Override
  public synchronized void write(String itemId, long offset, byte[] data, int off, int len) {
    checkNotCancelled();
    if (image == null) {
      throw NyalaException.illegalState("tablet image data received before the image was begun");
    }
    if (!itemId.equals(currentItem)) {
      finishItem();
      if (!expected.contains(itemId) || written.containsKey(itemId)) {
        throw NyalaException.invalidArgument("tablet copy item '%s' is not a block of the image "
            + "or was already received", itemId);
      }
      currentItem = itemId;
      txn = blocks.newCreation();
      block = txn.create();
      received = 0;
    }
    if (offset != received) {
      throw NyalaException.invalidArgument("chunk of item '%s' at offset %d, expected %d",
          itemId, offset, received);
    }
    block.append(data, off, len);
    received += len;
  }

  /** Commits the item being received as one new block. */
  private void finishItem() {
    if (currentItem == null) {
      return;
    }
    block.finalizeBlock();
    List<BlockId> ids = txn.commit();
    txn.close();
    written.put(currentItem, ids.get(0));
    lengths.put(currentItem, received);
    currentItem = null;
    txn = null;
    block = null;
  }

  @Override
  public synchronized void install() {
    checkNotCancelled();
    if (image == null) {
      throw NyalaException.illegalState("tablet image installed before it was begun");
    }
    finishItem();
    if (!written.keySet().equals(expected)) {
      Set<String> missing = new HashSet<>(expected);
      missing.removeAll(written.keySet());
      throw NyalaException.illegalState("tablet copy is missing blocks %s", missing);
    }
    Superblock local = image.withBlocks(b -> written.get(b.toString()));
    beforeReplace.run();
    local.write(env, superblockFile);
    installed = true;
    LOG.info("installed a copied image at index {}: {} blocks", local.durableIndex(),
        written.size());
  }

  /**
   * Stops the copy for good: received blocks are deleted now, and every later call fails with
   * ABORTED naming {@code why}. Waits for a step in progress. Idempotent.
   */
  public synchronized void cancel(String why) {
    if (cancelled == null) {
      cancelled = why;
      abort();
      LOG.info("tablet copy cancelled ({}); its received blocks were deleted", why);
    }
  }

  private void checkNotCancelled() {
    if (cancelled != null) {
      throw new NyalaException(StatusCode.ABORTED, "tablet copy cancelled: " + cancelled);
    }
  }

  @Override
  public synchronized void abort() {
    if (txn != null) {
      txn.close();
      txn = null;
    }
    if (installed) {
      return;
    }
    deleteQuietly(new ArrayList<>(written.values()));
    written.clear();
    lengths.clear();
  }

  private void deleteQuietly(List<BlockId> ids) {
    if (ids.isEmpty()) {
      return;
    }
    try {
      BlockManager.DeletionTransaction del = blocks.newDeletion();
      ids.forEach(del::add);
      del.commit();
    } catch (RuntimeException e) {
      LOG.warn("cannot delete the blocks of a dropped tablet copy (the next start does): {}",
          e.getMessage());
    }
  }
}
