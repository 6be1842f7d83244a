package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Deleting blocks really gives space back: allocated 512-byte units, not the file length. */
@Timeout(60)
class HolePunchTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void deletingMostBlocksLowersAllocatedSize(boolean encrypted) throws Exception {
    Env env = LbmFixture.env(encrypted);
    assumeTrue(HolePuncher.supported(), "no fallocate here (not Linux): hole punching is a no-op");
    // Without preallocation: reserved space past the blocks would hide the freed units.
    LbmOptions opts = LbmFixture.options(env, true, dir).withPreallocateBytes(0);
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      List<BlockId> ids = LbmFixture.create(bm, 200, 8192);
      Path data = Path.of(LbmFixture.metadataFiles(env, dir).get(0).toString()
          .replace(".metadata", ".data"));
      long before = allocatedUnits(data);
      long length = java.nio.file.Files.size(data);
      LbmFixture.delete(bm, ids.subList(0, 180));
      bm.awaitHolePunching();
      assumeTrue(bm.metrics().holesPunched() > 0,
          "the file system rejected fallocate(PUNCH_HOLE): cannot test hole punching here");
      long after = allocatedUnits(data);
      assertThat(bm.metrics().holesPunched()).isEqualTo(180);
      assertThat(java.nio.file.Files.size(data)).as("KEEP_SIZE").isEqualTo(length);
      // 200 blocks of 8 KiB = 16 units of 512 B each; 20 remain live.
      assertThat(before).isGreaterThanOrEqualTo(200 * 16);
      assertThat(after).isLessThanOrEqualTo(25 * 16);
      for (BlockId id : ids.subList(180, 200)) {
        assertThat(bm.openBlock(id).readAll()).isEqualTo(LbmFixture.content(id, 8192));
      }
    }
  }

  /** {@code stat -c %b}: Java has no portable way to read allocated blocks. */
  static long allocatedUnits(Path p) throws IOException, InterruptedException {
    Process pr = new ProcessBuilder("stat", "-c", "%b", p.toString()).redirectErrorStream(true)
        .start();
    String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
    assertThat(pr.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(pr.exitValue()).as("stat: %s", out).isZero();
    return Long.parseLong(out);
  }
}
