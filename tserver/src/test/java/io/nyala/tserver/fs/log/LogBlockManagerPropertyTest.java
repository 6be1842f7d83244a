package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random creates, deletes and reopens (switching replay mode at each reopen) must agree with
 * a map of id → content. The seed is in every failure message; set {@code -Dlbm.seed} to rerun.
 */
@Timeout(120)
class LogBlockManagerPropertyTest {
  @TempDir
  Path root;

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void agreesWithModel(boolean inMemory, boolean encrypted) {
    long seed = Long.getLong("lbm.seed", System.nanoTime());
    Random rnd = new Random(seed);
    Env env = LbmFixture.env(encrypted);
    LbmOptions opts = LbmFixture.options(env, inMemory, root.resolve("a"), root.resolve("b"))
        .withMaxBlocks(1 + rnd.nextInt(8));
    Map<BlockId, byte[]> model = new HashMap<>();
    long maxId = -1;
    LogBlockManager bm = LogBlockManager.open(opts);
    try {
      for (int step = 0; step < 150; step++) {
        String at = "seed " + seed + " step " + step;
        int op = rnd.nextInt(10);
        if (op < 5) {
          try (BlockManager.CreationTransaction tx = bm.newCreation()) {
            Map<BlockId, byte[]> made = new HashMap<>();
            for (int i = rnd.nextInt(6); i >= 0; i--) {
              BlockManager.WritableBlock b = tx.create();
              byte[] c = new byte[rnd.nextInt(6000)];
              rnd.nextBytes(c);
              b.append(c);
              b.finalizeBlock();
              assertThat(b.id().value()).as(at).isGreaterThan(maxId);
              maxId = b.id().value();
              made.put(b.id(), c);
            }
            tx.commit();
            model.putAll(made);
          }
        } else if (op < 8 && !model.isEmpty()) {
          List<BlockId> live = new ArrayList<>(model.keySet());
          java.util.Collections.shuffle(live, rnd);
          List<BlockId> gone = live.subList(0, 1 + rnd.nextInt(live.size()));
          LbmFixture.delete(bm, gone);
          gone.forEach(model::remove);
        } else {
          bm.close();
          bm = LogBlockManager.open(opts.withInmemThreshold(rnd.nextBoolean() ? 0 : 1 << 20));
          // A clean shutdown leaves nothing to repair; compaction is housekeeping, not repair.
          assertThat(bm.startupReport().problems()).as(at).isEmpty();
          assertThat(bm.startupReport().repairs()).as(at)
              .allMatch(r -> r.endsWith("metadata compacted"));
        }
        assertThat(bm.blockIds()).as(at).isEqualTo(model.keySet());
        for (Map.Entry<BlockId, byte[]> e : model.entrySet()) {
          assertThat(bm.openBlock(e.getKey()).readAll()).as(at + " block " + e.getKey())
              .isEqualTo(e.getValue());
        }
        assertThat(bm.metrics().blocksUnderManagement()).as(at).isEqualTo(model.size());
      }
    } finally {
      bm.close();
    }
  }
}
