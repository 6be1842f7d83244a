package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --log_container_preallocate_bytes}: space is reserved ahead of the data file's logical
 * end without changing its length, plain and encrypted.
 */
@Timeout(60)
class PreallocationTest {
  private static final long UNIT = 512;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void smallBlockReservesAChunkButKeepsTheLength(boolean encrypted) throws Exception {
    assumeTrue(Fallocate.supported(), "no fallocate here (not Linux): preallocation is a no-op");
    Env env = LbmFixture.env(encrypted);
    LbmOptions opts = LbmFixture.options(env, true, dir).withPreallocateBytes(4L << 20);
    List<BlockId> ids;
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      ids = LbmFixture.create(bm, 1, 1000);
      assumeTrue(bm.metrics().bytesPreallocated() > 0,
          "the file system rejected fallocate(KEEP_SIZE): cannot test preallocation here");
      assertThat(bm.metrics().bytesPreallocated()).isGreaterThanOrEqualTo(4L << 20);
      Path data = dataFile(env);
      assertThat(HolePunchTest.allocatedUnits(data) * UNIT).isGreaterThanOrEqualTo(4L << 20);
      assertThat(Files.size(data)).as("KEEP_SIZE: the length stays logical").isLessThan(8192);
      assertThat(LbmFixture.logicalSize(env, data)).isLessThan(8192);
    }
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.startupReport().clean()).isTrue();
      assertThat(bm.openBlock(ids.get(0)).readAll())
          .isEqualTo(LbmFixture.content(ids.get(0), 1000));
      List<BlockId> more = LbmFixture.create(bm, 3, 5000);
      for (BlockId id : more) {
        assertThat(bm.openBlock(id).readAll()).isEqualTo(LbmFixture.content(id, 5000));
      }
    }
  }

  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void zeroTurnsPreallocationOff(boolean encrypted) throws Exception {
    Env env = LbmFixture.env(encrypted);
    LbmOptions opts = LbmFixture.options(env, true, dir).withPreallocateBytes(0);
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      LbmFixture.create(bm, 1, 1000);
      assertThat(bm.metrics().bytesPreallocated()).isZero();
      assertThat(HolePunchTest.allocatedUnits(dataFile(env)) * UNIT).isLessThan(1L << 20);
    }
  }

  private Path dataFile(Env env) {
    return Path.of(LbmFixture.metadataFiles(env, dir).get(0).toString()
        .replace(".metadata", ".data"));
  }
}
