package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.env.TestBytes;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.common.security.KeyMaterial;
import io.nyala.tserver.fs.BlockId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Flush, compaction, deletion and damage of a store's blocks, on real block managers. */
@Timeout(60)
public class RowSetLifecycleTest {
  public static final Schema SCHEMA = new Schema(List.of(
      new ColumnSchema("id", Type.INT32, true, false, null, 1),
      new ColumnSchema("v", Type.STRING, false, true, null, 2)));
  @TempDir Path dir;

  private static List<Op> rows(RowOpType type, int from, int to, String prefix) {
    List<Op> ops = new ArrayList<>();
    for (int i = from; i < to; i++) {
      var r = SCHEMA.newPartialRow().addInt("id", i);
      if (type != RowOpType.DELETE) {
        r.addString("v", prefix + i);
      }
      ops.add(new Op(type, r));
    }
    return ops;
  }

  private static List<String> values(List<Object[]> rows) {
    return rows.stream().map(r -> r[0] + "=" + r[1]).toList();
  }

  @Test
  void aSnapshotScanPinnedBeforeACompactionFinishesWithTheOldContents() {
    try (StoreFixture fx = StoreFixture.plain(dir, SCHEMA)) {
      fx.apply(SCHEMA, rows(RowOpType.INSERT, 0, 100, "a"));
      fx.store.flush();
      fx.apply(SCHEMA, rows(RowOpType.UPDATE, 0, 50, "b"));
      fx.apply(SCHEMA, rows(RowOpType.DELETE, 90, 100, ""));
      fx.store.flush();
      long snap = fx.store.pinLatest(0);
      TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of(), List.of(), null, null, snap);
      List<String> expected = values(fx.store.scan(spec, null, 1000).rows());
      assertThat(expected).hasSize(90).contains("0=b0", "60=a60");

      ScanPage first = fx.store.scan(spec, null, 30);
      fx.apply(SCHEMA, rows(RowOpType.UPDATE, 0, 90, "c"));
      fx.apply(SCHEMA, rows(RowOpType.DELETE, 0, 10, ""));
      fx.store.flush();
      int layersBefore = fx.store.diskLayerCount();
      long blocksBefore = fx.blocks.blockIds().size();
      fx.store.compact();
      assertThat(fx.store.diskLayerCount()).isEqualTo(1).isLessThan(layersBefore);
      // The old layers' blocks went as soon as no reader held them.
      assertThat(fx.blocks.blockIds().size()).isLessThan((int) blocksBefore);

      List<Object[]> rest = new ArrayList<>(first.rows());
      byte[] after = first.lastKey();
      ScanPage p;
      do {
        p = fx.store.scan(spec, after, 7);
        rest.addAll(p.rows());
        after = p.lastKey();
      } while (p.hasMore());
      assertThat(values(rest)).isEqualTo(expected);
      TabletScanSpec now = spec.atSnapshot(fx.index);
      assertThat(fx.store.scan(now, null, 1000).rows()).hasSize(80)
          .allSatisfy(r -> assertThat((String) r[1]).startsWith("c"));
    }
  }

  @Test
  void aPinnedDurableStateKeepsItsBlocksThroughACompactionUntilClosed() {
    try (StoreFixture fx = StoreFixture.plain(dir, SCHEMA)) {
      fx.apply(SCHEMA, rows(RowOpType.INSERT, 0, 50, "a"));
      fx.store.flush();
      fx.apply(SCHEMA, rows(RowOpType.UPDATE, 0, 50, "b"));
      fx.store.flush();
      List<BlockId> pinned;
      try (BlockTabletStore.DurableSnapshot snap = fx.store.pinDurable()) {
        pinned = snap.superblock().allBlocks();
        assertThat(snap.superblock().durableIndex()).isEqualTo(fx.index);
        fx.store.compact();
        assertThat(fx.blocks.blockIds()).containsAll(pinned);
      }
      assertThat(fx.blocks.blockIds()).doesNotContainAnyElementsOf(pinned);
    }
  }

  @Test
  void destroyingATabletReturnsTheBlockCountToItsEarlierValue() {
    try (StoreFixture fx = StoreFixture.plain(dir, SCHEMA)) {
      int before = fx.blocks.blockIds().size();
      for (int round = 0; round < 4; round++) {
        fx.apply(SCHEMA, rows(RowOpType.UPSERT, round * 10, round * 10 + 50, "r" + round));
        fx.store.flush();
      }
      fx.store.compact();
      fx.apply(SCHEMA, rows(RowOpType.DELETE, 0, 5, ""));
      fx.store.flush();
      assertThat(fx.blocks.blockIds().size()).isGreaterThan(before);
      fx.store.destroy();
      assertThat(fx.blocks.blockIds()).hasSize(before);
      assertThat(Files.exists(fx.superblock())).isFalse();
    }
  }

  @Test
  void aFlippedByteInAColumnPageIsACorruptionNamingBlockAndOffset() throws IOException {
    try (StoreFixture fx = new StoreFixture(dir, Env.plain(), true, SCHEMA)) {
      fx.apply(SCHEMA, rows(RowOpType.INSERT, 0, 600, "v"));
      fx.store.flush();
      // Blocks of a layer: meta, key index, bloom, index, deleted flag, id, v.
      BlockId vBlock = Superblock.read(fx.env, fx.superblock()).allBlocks().get(6);
      Path file = blockFile(fx.dir, vBlock);
      byte[] b = Files.readAllBytes(file);
      b[20] ^= 0x40;
      Files.write(file, b);

      TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of(), List.of(), null, null, fx.index);
      assertThatThrownBy(() -> fx.store.scan(spec, null, 1000))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
          .hasMessageContaining("block " + vBlock)
          .hasMessageContaining("CRC mismatch in page of column 'v' at offset 0");
      // The tablet stays usable: new keys, and rows on undamaged pages.
      assertThat(fx.apply(SCHEMA, rows(RowOpType.INSERT, 1000, 1001, "new"))).isEmpty();
      TabletScanSpec tail = TabletScanSpec.of(SCHEMA, List.of(), List.of(),
          io.nyala.common.row.KeyEncoder.encode(SCHEMA.keyColumns(), new Object[] {300}), null,
          fx.index);
      assertThat(fx.store.scan(tail, null, 1000).rows()).hasSize(301);
    }
  }

  private static Path blockFile(Path root, BlockId id) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.getFileName().toString().equalsIgnoreCase(id.toString())
              || p.getFileName().toString().equalsIgnoreCase(Long.toHexString(id.value())))
          .findFirst().orElseThrow(() -> new AssertionError("no file for block " + id));
    }
  }

  @Test
  void encryptedBlocksAndSuperblockNeverHoldTheMarker() throws IOException {
    Env env = Env.encrypted(KeyMaterial.random(256), 256);
    String marker = "CANARY-7f3a9e";
    try (StoreFixture fx = new StoreFixture(dir, env, false, SCHEMA)) {
      fx.apply(SCHEMA, rows(RowOpType.INSERT, 0, 200, marker));
      fx.store.flush();
      fx.apply(SCHEMA, rows(RowOpType.UPDATE, 0, 100, marker + "-u"));
      fx.store.flush();
      fx.store.compact();
      TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of(), List.of(), null, null, fx.index);
      assertThat(fx.store.scan(spec, null, 1000).rows()).hasSize(200);
    }
    byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
    List<Path> files;
    try (Stream<Path> s = Files.walk(dir)) {
      files = s.filter(Files::isRegularFile).toList();
    }
    assertThat(files).isNotEmpty();
    for (Path f : files) {
      assertThat(TestBytes.indexOf(Files.readAllBytes(f), needle)).as("marker in %s", f)
          .isEqualTo(-1);
    }
  }

}
