package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A crash while appending the last CREATE record: every possible cut inside it, and zero
 * tails of several sizes, must reopen with exactly the blocks that were complete.
 */
@Timeout(120)
class LogBlockManagerCrashTest {
  @TempDir
  Path dir;

  private Env env;
  private LbmOptions opts;
  private Path meta;
  private byte[] raw;
  private Set<BlockId> all;
  private BlockId last;
  private long sizeBefore;
  private long sizeAfter;

  private void build(boolean inMemory, boolean encrypted) throws Exception {
    env = LbmFixture.env(encrypted);
    opts = LbmFixture.options(env, inMemory, dir);
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      all = new HashSet<>(LbmFixture.create(bm, 5, 100));
      List<BlockId> gone = LbmFixture.create(bm, 2, 10);
      LbmFixture.delete(bm, gone);
      meta = LbmFixture.metadataFiles(env, dir).get(0);
      sizeBefore = LbmFixture.logicalSize(env, meta);
      last = LbmFixture.create(bm, 1, 7).get(0);
      sizeAfter = LbmFixture.logicalSize(env, meta);
    }
    raw = Files.readAllBytes(meta);
  }

  private LogBlockManager reopen() throws Exception {
    return LogBlockManager.open(opts);
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void cutAtEveryOffsetInsideTheLastRecord(boolean inMemory, boolean encrypted) throws Exception {
    build(inMemory, encrypted);
    assertThat(sizeAfter - sizeBefore).isEqualTo(RecordFormat.FRAME + RecordFormat.CREATE_SIZE);
    for (long cut = sizeBefore + 1; cut < sizeAfter; cut++) {
      Files.write(meta, raw);
      LbmFixture.setLogicalSize(env, meta, cut);
      try (LogBlockManager bm = reopen()) {
        assertThat(bm.blockIds()).as("cut at %d", cut).isEqualTo(all);
        assertThat(bm.startupReport().repairs()).as("cut at %d", cut).hasSize(1)
            .allMatch(r -> r.contains("truncated to " + sizeBefore));
        assertThat(bm.startupReport().problems()).isEmpty();
      }
      assertThat(LbmFixture.logicalSize(env, meta)).isEqualTo(sizeBefore);
      try (LogBlockManager bm = reopen()) {
        assertThat(bm.startupReport().clean()).as("second open after cut at %d", cut).isTrue();
      }
    }
    Files.write(meta, raw);
    try (LogBlockManager bm = reopen()) {
      all.add(last);
      assertThat(bm.blockIds()).isEqualTo(all);
      assertThat(bm.openBlock(last).readAll()).isEqualTo(LbmFixture.content(last, 7));
    }
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void zeroTailIsAnIncompleteRecord(boolean inMemory, boolean encrypted) throws Exception {
    build(inMemory, encrypted);
    all.add(last);
    for (int zeros : new int[] {1, 7, 16, 4096, 8192}) {
      Files.write(meta, raw);
      LbmFixture.setLogicalSize(env, meta, sizeAfter + zeros);
      try (LogBlockManager bm = reopen()) {
        assertThat(bm.blockIds()).as("%d zeros", zeros).isEqualTo(all);
        assertThat(bm.startupReport().repairs()).as("%d zeros", zeros).singleElement()
            .asString().contains("all-zero tail").contains("truncated to " + sizeAfter);
        assertThat(bm.startupReport().problems()).isEmpty();
        for (BlockId id : all) {
          assertThat(bm.openBlock(id).size()).isIn(100L, 7L);
        }
      }
      assertThat(LbmFixture.logicalSize(env, meta)).isEqualTo(sizeAfter);
    }
  }
}
