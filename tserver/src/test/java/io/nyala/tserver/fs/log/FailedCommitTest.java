package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.env.DiskFaults;
import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A creation transaction whose commit fails after its data writes, on the data fsync or the
 * metadata append (docs/data-safety.md, "Disk faults"), abandons its blocks: none becomes
 * visible, their ranges are punched and their container, full and now without a block, is
 * deleted, instead of all staying until a restart. Real files, faults from {@link DiskFaults}.
 */
@Timeout(60)
class FailedCommitTest {
  @TempDir
  Path dir;

  /** Where the commit fails: the data fsync, or the CREATE records' append. */
  enum Step { DATA_SYNC, METADATA_APPEND }

  @ParameterizedTest
  @EnumSource(Step.class)
  void aFailedCommitAbandonsItsBlocks(Step step) {
    DiskFaults faults = new DiskFaults();
    Env env = Env.plain(faults);
    // One block per container: the failed block's container is full, so once abandoned it has
    // no block left and goes.
    LbmOptions opts = LbmFixture.options(env, true, dir).withMaxBlocks(1)
        .withPreallocateBytes(0);
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      List<BlockId> kept = LbmFixture.create(bm, 1, 4096);
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        BlockManager.WritableBlock b = tx.create();
        b.append(LbmFixture.content(b.id(), 8192));
        b.finalizeBlock();
        faults.inject(new DiskFaults.Rule(step == Step.DATA_SYNC ? DiskFaults.Op.SYNC
            : DiskFaults.Op.WRITE, DiskFaults.Kind.ENOSPC, dir, false));
        BlockId id = b.id();
        assertThatThrownBy(tx::commit).hasMessageContaining("No space left on device");
        assertThat(bm.contains(id)).isFalse();
      }
      bm.awaitHolePunching();
      assertThat(bm.metrics().blocksUnderManagement()).isEqualTo(1);
      assertThat(bm.metrics().containers()).as("the failed block's container is gone")
          .isEqualTo(1);
      assertThat(bm.metrics().deadContainersDeleted()).isEqualTo(1);
      assertThat(LbmFixture.metadataFiles(env, dir)).hasSize(1);

      // Space is back: the next transaction commits into a new container.
      List<BlockId> next = LbmFixture.create(bm, 1, 4096);
      assertThat(bm.openBlock(next.get(0)).readAll())
          .isEqualTo(LbmFixture.content(next.get(0), 4096));
      assertThat(bm.openBlock(kept.get(0)).readAll())
          .isEqualTo(LbmFixture.content(kept.get(0), 4096));
    }
  }
}
