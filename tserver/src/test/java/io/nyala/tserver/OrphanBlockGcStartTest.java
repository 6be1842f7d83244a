package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.Env;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import io.nyala.tserver.replica.TabletManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The startup orphan-block GC deletes what a crash left, never what lost metadata only makes
 * look orphaned: nothing when the metadata dir is new or empty, and above its share it keeps
 * the blocks and reports them unless the operator allows it.
 */
@Timeout(120)
class OrphanBlockGcStartTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;
  private final String tablet = RaftIds.newId();

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  private static List<BlockId> createBlocks(BlockManager bm, int n) {
    List<BlockId> ids = new ArrayList<>();
    try (BlockManager.CreationTransaction tx = bm.newCreation()) {
      for (int i = 0; i < n; i++) {
        BlockManager.WritableBlock b = tx.create();
        b.append(new byte[] {1, 2, 3});
        b.finalizeBlock();
        ids.add(b.id());
      }
      tx.commit();
    }
    return ids;
  }

  @ParameterizedTest(name = "metadata dir exists: {0}")
  @ValueSource(booleans = {false, true})
  void aNewOrEmptyMetadataDirDeletesNoBlock(boolean metaDirExists) throws Exception {
    Path meta = dir.resolve("tablet-meta");
    if (metaDirExists) {
      Files.createDirectories(meta);
    }
    try (LogBlockManager bm = LogBlockManager.open(LbmOptions.defaults(Env.plain(),
        List.of(dir.resolve("blocks"))))) {
      List<BlockId> blocks = createBlocks(bm, 5);
      TabletManager tm = new TabletManager(meta, dir.resolve("raft"), RaftIds.newId(), null,
          Env.plain(), null, null, bm, dir.resolve("tablet-data"));
      tm.load();
      assertThat(bm.blockIds()).containsExactlyInAnyOrderElementsOf(blocks);
      assertThat(tm.orphanBlocksDeletedAtStart()).isZero();
    }
  }

  /** A tablet with flushed data, then {@code orphans} blocks no superblock lists; stops it. */
  private Set<BlockId> serverWithOrphans(TserverOptions o, int orphans) {
    ts = TserverFixture.start(o);
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    fx.write(ts, inserts(tablet, 0, 100, RowOpType.INSERT));
    ts.tabletManager().get(tablet).stateMachine().store().flush();
    createBlocks(ts.blockManager(), orphans);
    Set<BlockId> all = ts.blockManager().blockIds();
    ts.close();
    return all;
  }

  @Test
  void aboveTheShareTheGcKeepsTheBlocksAndReportsThem() {
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    Set<BlockId> before = serverWithOrphans(o, 100);
    ts = TserverFixture.start(o);
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(ts.blockManager().blockIds()).isEqualTo(before);
    assertThat(ts.metrics().value("tablet_orphaned_blocks_deleted_at_start", Map.of())).isZero();
    assertThat(ts.metrics().value("tablet_orphaned_blocks_kept_at_start", Map.of()))
        .isEqualTo(100);
    assertThat(fx.scanAll(ts, tablet, 1000)).hasSize(100);
  }

  @Test
  void theOperatorFlagLetsTheGcDeleteAboveTheShare() {
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    Set<BlockId> before = serverWithOrphans(o, 100);
    o.orphanBlockGcAllowMassDelete = true;
    ts = TserverFixture.start(o);
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(ts.blockManager().blockIds()).hasSize(before.size() - 100);
    assertThat(ts.metrics().value("tablet_orphaned_blocks_deleted_at_start", Map.of()))
        .isEqualTo(100);
    assertThat(ts.metrics().value("tablet_orphaned_blocks_kept_at_start", Map.of())).isZero();
    assertThat(fx.scanAll(ts, tablet, 1000)).hasSize(100);
  }
}
