package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.tserver.fs.BlockId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What keeps deleting a big tablet cheap (DeleteTablet drops all its blocks in one deletion
 * transaction): however many blocks a transaction touches, each container's metadata gets one
 * append of all its records and one sync, encrypted or not.
 */
@Timeout(60)
class TransactionBatchingTest {
  @TempDir
  Path a;
  @TempDir
  Path b;

  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void oneMetadataAppendAndSyncPerContainerAndTransaction(boolean encrypted) {
    MetadataWriteCountingEnv env = new MetadataWriteCountingEnv(LbmFixture.env(encrypted));
    LbmOptions opts = LbmFixture.options(env, true, a, b);
    List<BlockId> all = new ArrayList<>();
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      // As 200 flushes write them: 7 blocks per transaction, spread over both dirs. The first
      // also creates the containers (a header append and sync each).
      all.addAll(LbmFixture.create(bm, 7, 100));
      for (int i = 1; i < 200; i++) {
        env.reset();
        all.addAll(LbmFixture.create(bm, 7, 100));
        assertThat(env.appends.get()).isEqualTo(env.syncs.get()).isEqualTo(2);
      }
      int containers = LbmFixture.metadataFiles(env, a).size()
          + LbmFixture.metadataFiles(env, b).size();
      assertThat(containers).isEqualTo(2);

      env.reset();
      LbmFixture.delete(bm, all);
      assertThat(env.appends.get()).isEqualTo(containers);
      assertThat(env.syncs.get()).isEqualTo(containers);
      assertThat(bm.blockIds()).isEmpty();
    }
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.blockIds()).as("the deletion is durable").isEmpty();
    }
  }
}
