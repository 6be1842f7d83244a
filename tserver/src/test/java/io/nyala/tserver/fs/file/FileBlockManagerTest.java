package io.nyala.tserver.fs.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.Env;
import io.nyala.common.security.KeyMaterial;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The file block manager against a model, and the repair case that applies to it. */
@Timeout(60)
class FileBlockManagerTest {
  @TempDir
  Path root;

  private static Env env(boolean encrypted) {
    return encrypted ? Env.encrypted(KeyMaterial.random(256), 256) : Env.plain();
  }

  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void agreesWithModelAcrossReopens(boolean encrypted) {
    long seed = Long.getLong("fbm.seed", System.nanoTime());
    Random rnd = new Random(seed);
    Env env = env(encrypted);
    List<Path> dirs = List.of(root.resolve("a"), root.resolve("b"));
    Map<BlockId, byte[]> model = new HashMap<>();
    long maxId = -1;
    FileBlockManager bm = FileBlockManager.open(env, dirs);
    try {
      for (int step = 0; step < 60; step++) {
        String at = "seed " + seed + " step " + step;
        int op = rnd.nextInt(10);
        if (op < 5) {
          try (BlockManager.CreationTransaction tx = bm.newCreation()) {
            for (int i = rnd.nextInt(4); i >= 0; i--) {
              BlockManager.WritableBlock b = tx.create();
              byte[] c = new byte[rnd.nextInt(3000)];
              rnd.nextBytes(c);
              b.append(c);
              b.finalizeBlock();
              assertThat(b.id().value()).as(at).isGreaterThan(maxId);
              maxId = b.id().value();
              model.put(b.id(), c);
            }
            tx.commit();
          }
        } else if (op < 8 && !model.isEmpty()) {
          List<BlockId> live = new ArrayList<>(model.keySet());
          java.util.Collections.shuffle(live, rnd);
          BlockManager.DeletionTransaction tx = bm.newDeletion();
          for (BlockId id : live.subList(0, 1 + rnd.nextInt(live.size()))) {
            tx.add(id);
            model.remove(id);
          }
          tx.commit();
        } else {
          bm.close();
          bm = FileBlockManager.open(env, dirs);
          assertThat(bm.startupReport().clean()).as(at).isTrue();
        }
        assertThat(bm.blockIds()).as(at).isEqualTo(model.keySet());
        for (Map.Entry<BlockId, byte[]> e : model.entrySet()) {
          assertThat(bm.openBlock(e.getKey()).readAll()).as(at).isEqualTo(e.getValue());
        }
      }
    } finally {
      bm.close();
    }
  }

  @ParameterizedTest(name = "encrypted={0}")
  @ValueSource(booleans = {false, true})
  void uncommittedFilesAreDeletedAndIdsNotReused(boolean encrypted) throws Exception {
    Env env = env(encrypted);
    List<Path> dirs = List.of(root.resolve("a"));
    BlockId id;
    try (FileBlockManager bm = FileBlockManager.open(env, dirs)) {
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        BlockManager.WritableBlock b = tx.create();
        b.append(new byte[] {1});
        b.finalizeBlock();
        id = tx.commit().get(0);
      }
      BlockManager.DeletionTransaction tx = bm.newDeletion();
      tx.add(id);
      tx.commit();
    }
    Path stray = root.resolve("a").resolve("00").resolve("07");
    Files.createDirectories(stray);
    Files.write(stray.resolve("0000000000000007.tmp"), new byte[10]);
    try (FileBlockManager bm = FileBlockManager.open(env, dirs)) {
      assertThat(bm.startupReport().repairs()).singleElement().asString()
          .contains("uncommitted block file: deleted");
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        assertThat(tx.create().id().value()).isGreaterThan(id.value());
      }
    }
  }
}
