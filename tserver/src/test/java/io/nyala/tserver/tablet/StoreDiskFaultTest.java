package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.DiskFaults;
import io.nyala.common.env.DiskFaults.Kind;
import io.nyala.common.env.DiskFaults.Op;
import io.nyala.common.env.Env;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tablet store on a real log block manager over two data dirs whose env injects disk faults
 * (docs/data-safety.md, "Disk faults"): a full disk fails flushes without failing the tablet and
 * flushes resume once space returns; an EIO on a block fsync fails the flush, marks the dir
 * failed, reports the tablet damaged and records nothing as durable; the other dir keeps taking
 * blocks.
 */
@Timeout(60)
class StoreDiskFaultTest {
  private static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("id", Type.INT32).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).nullable(false).build()));

  @TempDir
  Path dir;
  private final DiskFaults faults = new DiskFaults();
  private Env env;
  private Path dataA;
  private Path dataB;
  private LogBlockManager blocks;
  private BlockTabletStore store;
  private final List<NyalaException> damage = new CopyOnWriteArrayList<>();
  private long index;

  @BeforeEach
  void setUp() {
    env = Env.plain(faults);
    dataA = dir.resolve("a");
    dataB = dir.resolve("b");
    blocks = LogBlockManager.open(LbmOptions.defaults(env, List.of(dataA, dataB)));
    store = open("t1");
  }

  @AfterEach
  void tearDown() {
    faults.clear();
    store.close();
    blocks.close();
  }

  private BlockTabletStore open(String tabletId) {
    BlockTabletStore s = BlockTabletStore.open(tabletId, SCHEMA, env, blocks,
        dir.resolve(tabletId + ".superblock"));
    s.onDamaged(damage::add);
    return s;
  }

  private void insert(BlockTabletStore s, int from, int to) {
    List<RowOperations.Op> ops = new ArrayList<>();
    for (int i = from; i < to; i++) {
      PartialRow r = SCHEMA.newPartialRow();
      r.addObject("id", i);
      r.addObject("v", "v" + i);
      ops.add(new RowOperations.Op(RowOpType.INSERT, r));
    }
    long i = ++index;
    assertThat(s.apply(SCHEMA, ops, i)).isEmpty();
    s.markApplied(1, i);
  }

  private int count(BlockTabletStore s) {
    TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of(), List.of(), null, null, index);
    return s.scan(spec, null, 1_000_000).rows().size();
  }

  @Test
  void aFullDiskFailsFlushesUntilSpaceReturnsAndNeverFailsTheTablet() {
    insert(store, 0, 100);
    faults.inject(Op.WRITE, Kind.ENOSPC, dataA);
    faults.inject(Op.WRITE, Kind.ENOSPC, dataB);
    for (int attempt = 0; attempt < 3; attempt++) {
      assertThatThrownBy(store::flush).isInstanceOf(NyalaException.class)
          .hasMessageContaining("tablet t1: flush failed, the disk is full")
          .hasMessageContaining("No space left on device")
          .extracting(e -> ((NyalaException) e).code()).isEqualTo(StatusCode.IO_ERROR);
      insert(store, 100 + attempt * 10, 110 + attempt * 10); // writes go on meanwhile
    }
    assertThat(store.diskFull()).isNotNull();
    assertThat(store.durableIndex()).isZero();
    assertThat(count(store)).isEqualTo(130);
    assertThat(damage).isEmpty();
    assertThat(blocks.dirFailures().failedDirs()).isEmpty();
    assertThat(blocks.metrics().noSpaceErrors()).isGreaterThanOrEqualTo(3);

    faults.clear();
    assertThat(store.flush()).isTrue();
    assertThat(store.diskFull()).isNull();
    assertThat(store.durableIndex()).isEqualTo(index);
    store.close();
    store = open("t1");
    assertThat(count(store)).isEqualTo(130);
  }

  @Test
  void eioOnABlockFsyncFailsTheFlushTheDirAndTheTabletButNotTheOtherDir() {
    insert(store, 0, 100);
    assertThat(store.flush()).isTrue();
    long durable = store.durableIndex();
    insert(store, 100, 200);
    // Under both dirs: the flush's first block sync fails, whichever dir its block went to.
    faults.inject(Op.SYNC, Kind.EIO, dir);

    assertThatThrownBy(store::flush).isInstanceOf(NyalaException.class)
        .hasMessageContaining("tablet t1: flush failed on a disk error")
        .hasMessageContaining("Input/output error");
    assertThat(store.durableIndex()).isEqualTo(durable);
    assertThat(damage).singleElement().extracting(NyalaException::getMessage).asString()
        .contains("tablet t1").contains("injected disk fault: EIO on sync under " + dir);
    assertThat(blocks.dirFailures().failedDirs()).hasSize(1);
    Path failed = blocks.dirFailures().failedDirs().iterator().next();
    assertThat(damage.get(0).getMessage()).contains(failed.toString());
    assertThat(blocks.dirFailures().why(failed)).contains("block data sync");
    assertThat(blocks.metrics().failedDataDirs()).isEqualTo(1);
    // Reads still work: every applied row is in memory or in the layer flushed before.
    assertThat(count(store)).isEqualTo(200);

    // Now only the failed dir keeps failing: another tablet flushes into the healthy dir only,
    // however many blocks it writes.
    faults.clear();
    faults.inject(Op.SYNC, Kind.EIO, failed);
    BlockTabletStore other = open("t2");
    try {
      for (int round = 0; round < 4; round++) {
        insert(other, round * 50, round * 50 + 50);
        assertThat(other.flush()).isTrue();
      }
      assertThat(damage).hasSize(1);
      assertThat(count(other)).isEqualTo(200);
      assertThat(blocks.dirFailures().failedDirs()).containsExactly(failed);
    } finally {
      other.close();
    }
  }

  @Test
  void noBlockCanBeCreatedOnceEveryDirFailed() {
    faults.inject(Op.SYNC, Kind.EIO, dir);
    insert(store, 0, 10);
    assertThatThrownBy(store::flush).hasMessageContaining("flush failed on a disk error");
    BlockTabletStore other = open("t2");
    try {
      insert(other, 0, 10);
      // The first flush fails the other dir; then nothing is left to place a block in.
      assertThatThrownBy(other::flush).hasMessageContaining("flush failed on a disk error");
      assertThat(blocks.dirFailures().failedDirs()).containsExactlyInAnyOrder(dataA, dataB);
      assertThatThrownBy(other::flush).hasMessageContaining("no healthy data dir");
    } finally {
      other.close();
    }
  }
}
