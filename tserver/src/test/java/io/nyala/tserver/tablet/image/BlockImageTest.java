package io.nyala.tserver.tablet.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.security.KeyMaterial;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.RowSetLifecycleTest;
import io.nyala.tserver.tablet.StoreFixture;
import io.nyala.tserver.tablet.StoreModel;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.tablet.TabletScanSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The block store's tablet copy image and installer, store to store on real (encrypted, each
 * with its own key) block managers: what the destination opens equals the source's durable state.
 */
@Timeout(60)
class BlockImageTest {
  private static final int CHUNK = 100;
  @TempDir Path src;
  @TempDir Path dst;

  private static List<Op> rows(RowOpType type, int from, int to, String prefix) {
    List<Op> ops = new ArrayList<>();
    for (int i = from; i < to; i++) {
      ops.add(new Op(type, RowSetLifecycleTest.SCHEMA.newPartialRow().addInt("id", i)
          .addString("v", prefix + i)));
    }
    return ops;
  }

  /** Applies rows as one entry and flushes them. */
  private static void flushed(StoreFixture fx, RowOpType type, int from, int to, String prefix) {
    fx.apply(RowSetLifecycleTest.SCHEMA, rows(type, from, to, prefix));
    fx.store.flush();
  }

  private static StoreFixture encrypted(Path dir) {
    return new StoreFixture(dir, Env.encrypted(KeyMaterial.random(256), 256), false,
        RowSetLifecycleTest.SCHEMA);
  }

  private static List<List<Object>> scan(BlockTabletStore s, long snapshot) {
    TabletScanSpec spec = TabletScanSpec.of(s.schema(), List.of(), List.of(), null, null, snapshot);
    return StoreModel.asLists(s.scan(spec, null, 1000).rows());
  }

  private static BlockImage open(StoreFixture fx) {
    return BlockImage.open(fx.store.pinDurable(), fx.blocks, () -> {});
  }

  /** Sends every item in chunks, as TabletCopyClient does. */
  private static void send(TabletImage image, TabletImageInstaller into) throws Exception {
    into.begin(image.manifest(), image.lastIndex(), image.lastTerm());
    byte[] buf = new byte[CHUNK];
    for (TabletImage.Item item : image.items()) {
      for (long off = 0; off < item.length(); ) {
        int n = image.read(item.id(), off, buf, 0, CHUNK);
        into.write(item.id(), off, buf, 0, n);
        off += n;
      }
    }
  }

  @Test
  void theDestinationOpensTheSourcesDurableStateInItsOwnNewBlocks() throws Exception {
    try (StoreFixture from = encrypted(src); StoreFixture to = encrypted(dst)) {
      flushed(from, RowOpType.INSERT, 0, 300, "a");
      flushed(from, RowOpType.UPDATE, 0, 100, "b");
      from.apply(RowSetLifecycleTest.SCHEMA, rows(RowOpType.INSERT, 300, 310, "unflushed"));
      long durable = from.store.durableIndex();
      Set<BlockId> before = new HashSet<>(to.blocks.blockIds());
      try (BlockImage image = open(from)) {
        assertThat(image.lastIndex()).isEqualTo(durable);
        BlockImageInstaller installer = new BlockImageInstaller(to.env, to.blocks,
            to.superblock(), to.store::close);
        send(image, installer);
        installer.install();
        to.open();
        assertThat(to.store.durableIndex()).isEqualTo(durable);
        assertThat(scan(to.store, durable)).isEqualTo(scan(from.store, durable)).hasSize(300);
        Set<BlockId> added = new HashSet<>(to.blocks.blockIds());
        added.removeAll(before);
        assertThat(added).hasSize(image.items().size())
            .containsExactlyInAnyOrderElementsOf(to.store.durableState().allBlocks());
      }
    }
  }

  @Test
  void theImageKeepsItsBlocksThroughACompactionUntilItIsClosed() throws Exception {
    try (StoreFixture fx = encrypted(src)) {
      flushed(fx, RowOpType.INSERT, 0, 100, "a");
      flushed(fx, RowOpType.UPDATE, 0, 100, "b");
      BlockImage image = open(fx);
      List<BlockId> pinned = Superblock.decode(image.manifest(), "manifest").allBlocks();
      fx.store.compact();
      assertThat(fx.store.durableState().allBlocks()).doesNotContainAnyElementsOf(pinned);
      assertThat(fx.blocks.blockIds()).containsAll(pinned);
      byte[] buf = new byte[CHUNK];
      for (TabletImage.Item item : image.items()) {
        assertThat(image.read(item.id(), 0, buf, 0, CHUNK)).isPositive();
      }
      assertThatThrownBy(() -> image.read("no-such-block", 0, buf, 0, CHUNK))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
      image.close();
      assertThat(fx.blocks.blockIds()).doesNotContainAnyElementsOf(pinned);
    }
  }

  @Test
  void anAbortedCopyDeletesTheBlocksItWroteAndLeavesTheStoreAlone() throws Exception {
    try (StoreFixture from = encrypted(src); StoreFixture to = encrypted(dst)) {
      flushed(from, RowOpType.INSERT, 0, 100, "a");
      flushed(to, RowOpType.INSERT, 0, 5, "local");
      Set<BlockId> before = new HashSet<>(to.blocks.blockIds());
      try (BlockImage image = open(from)) {
        BlockImageInstaller installer = new BlockImageInstaller(to.env, to.blocks,
            to.superblock(), to.store::close);
        send(image, installer);
        installer.abort();
      }
      assertThat(to.blocks.blockIds()).isEqualTo(before);
      assertThat(scan(to.store, to.index)).hasSize(5);
    }
  }
}
