package io.nyala.tserver.tablet.rowset;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.Env;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import io.nyala.tserver.tablet.cfile.ColumnWriter;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The streaming layer writer: pages go to the blocks as they fill, never the whole layer. */
@Timeout(60)
class DiskLayerWriterTest {
  private static final Schema SCHEMA = new Schema(List.of(
      new ColumnSchema("id", Type.INT32, true, false, null, 1),
      new ColumnSchema("v", Type.STRING, false, true, null, 2)));
  @TempDir Path dir;

  private static byte[] key(int i) {
    return KeyEncoder.encode(SCHEMA.keyColumns(), new Object[] {i});
  }

  @Test
  void aLayerOfManyPagesStreamsWithAtMostAPageHeldAndReadsBackExactly() {
    int keys = 20_000;
    MemLayer mem = new MemLayer(SCHEMA);
    for (int i = 0; i < keys; i++) {
      // Every third key also has an older version and every seventh a deletion on top.
      if (i % 3 == 0) {
        mem.put(key(i), new Version(1, new Object[] {i, "old" + i}), 0, true);
      }
      Object[] row = i % 7 == 0 ? null : new Object[] {i, i % 5 == 0 ? null : "v" + i};
      mem.put(key(i), new Version(2, row), 0, true);
    }
    try (BlockManager bm = LogBlockManager.open(
        LbmOptions.defaults(Env.plain(), List.of(dir)).withDataFsync(false))) {
      DiskLayerWriter w;
      List<BlockId> ids;
      try (BlockManager.CreationTransaction txn = bm.newCreation()) {
        // Horizon 0: every version is kept, so the layer holds both versions of a third of keys.
        w = DiskLayerWriter.merge(List.of(mem), new Projection(SCHEMA), 0, false, txn);
        ids = w.finish();
        txn.commit();
      }
      int versions = keys + (keys + 2) / 3;
      assertThat(w.versionCount()).isEqualTo(versions).isGreaterThan(50 * ColumnWriter.PAGE_ROWS);
      assertThat(w.peakBufferedRows()).isLessThan(ColumnWriter.PAGE_ROWS);

      DiskLayer d = DiskLayer.open(bm, ids);
      assertThat(d.keyCount()).isEqualTo(keys);
      Layer.LayerCursor c = d.seek(null, true);
      for (int i = 0; i < keys; i++) {
        assertThat(c.next()).isTrue();
        assertThat(c.key()).isEqualTo(key(i));
        assertThat(versions(c.versions())).as("key %d", i).isEqualTo(versions(mem.get(key(i))));
      }
      assertThat(c.next()).isFalse();
      assertThat(versions(d.get(key(keys - 1)))).isEqualTo(versions(mem.get(key(keys - 1))));
    }
  }

  @Test
  void aWriterThatGetsNoKeyCreatesNoBlock() {
    try (BlockManager bm = LogBlockManager.open(
        LbmOptions.defaults(Env.plain(), List.of(dir)).withDataFsync(false))) {
      try (BlockManager.CreationTransaction txn = bm.newCreation()) {
        DiskLayerWriter w = new DiskLayerWriter(SCHEMA, txn, 10);
        assertThat(w.isEmpty()).isTrue();
        assertThat(w.finish()).isEmpty();
        assertThat(txn.commit()).isEmpty();
      }
      assertThat(bm.blockIds()).isEmpty();
    }
  }

  private static List<String> versions(Version[] vs) {
    return Arrays.stream(vs)
        .map(v -> v.index() + ":" + (v.row() == null ? "deleted" : Arrays.asList(v.row())))
        .toList();
  }
}
