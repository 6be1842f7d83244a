package io.nyala.tserver.copy;

import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.tablet.image.TabletImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tablet image in memory, shaped as the block store's: the manifest is a superblock listing
 * the blocks, the items are those blocks. A block's bytes follow from its id, so two images that
 * list the same block hold the same bytes, as on a real leader.
 */
final class BytesImage implements TabletImage {
  private static final Schema SCHEMA =
      new Schema(List.of(new ColumnSchema("id", Type.INT32, true, false, null, 1)));

  private final Superblock superblock;
  private final Map<String, byte[]> blocks = new LinkedHashMap<>();
  private final AtomicInteger closes;

  /** An image at {@code index} of the blocks {@code id → size}, counting closes. */
  BytesImage(long index, Map<Long, Integer> sizes, AtomicInteger closes) {
    List<BlockId> ids = new ArrayList<>();
    sizes.forEach((id, size) -> {
      byte[] b = new byte[size];
      new SplittableRandom(id).nextBytes(b);
      blocks.put(new BlockId(id).toString(), b);
      ids.add(new BlockId(id));
    });
    this.superblock = new Superblock(SCHEMA, index, 2, 0, 0,
        List.of(new Superblock.RowSetEntry(0, List.of(ids))));
    this.closes = closes;
  }

  /** The bytes of the image's {@code i}-th block (manifest order). */
  byte[] block(int i) {
    return blocks.get(superblock.allBlocks().get(i).toString());
  }

  long totalBytes() {
    return blocks.values().stream().mapToLong(b -> b.length).sum();
  }

  @Override
  public long lastIndex() {
    return superblock.durableIndex();
  }

  @Override
  public long lastTerm() {
    return superblock.durableTerm();
  }

  @Override
  public byte[] manifest() {
    return superblock.encode();
  }

  @Override
  public List<Item> items() {
    List<Item> out = new ArrayList<>();
    blocks.forEach((id, b) -> out.add(new Item(id, b.length)));
    return out;
  }

  @Override
  public int read(String itemId, long offset, byte[] buf, int bufOffset, int length) {
    byte[] b = blocks.get(itemId);
    if (b == null) {
      throw NyalaException.notFound("item '%s' not found", itemId);
    }
    int n = (int) Math.max(0, Math.min(length, b.length - offset));
    System.arraycopy(b, (int) Math.min(offset, b.length), buf, bufOffset, n);
    return n;
  }

  @Override
  public void close() {
    closes.incrementAndGet();
  }
}
