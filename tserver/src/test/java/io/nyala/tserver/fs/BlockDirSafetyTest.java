package io.nyala.tserver.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.tserver.fs.file.FileBlockManager;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Block dirs an operator changed or a stranger wrote to: reordered or added data dirs never bring
 * a block id back nor lose a block; a bad high-water mark or a stray file is named, never a
 * NumberFormatException; strays are left alone.
 */
@Timeout(30)
class BlockDirSafetyTest {
  @TempDir
  Path root;

  private static Function<List<Path>, BlockManager> opener(String kind) {
    return dirs -> kind.equals("log")
        // One block per container: deleting the block deletes its container and its records.
        ? LogBlockManager.open(LbmOptions.defaults(Env.plain(), dirs).withMaxBlocks(1))
        : FileBlockManager.open(Env.plain(), dirs);
  }

  private static List<BlockId> create(BlockManager bm, int n) {
    List<BlockId> ids = new ArrayList<>();
    try (BlockManager.CreationTransaction tx = bm.newCreation()) {
      for (int i = 0; i < n; i++) {
        BlockManager.WritableBlock b = tx.create();
        b.append(new byte[] {(byte) i, 2, 3});
        b.finalizeBlock();
        ids.add(b.id());
      }
      tx.commit();
    }
    return ids;
  }

  @ParameterizedTest(name = "{0} block manager")
  @ValueSource(strings = {"log", "file"})
  void reorderingOrAddingDataDirsNeverReusesABlockIdNorLosesABlock(String kind) {
    Path a = root.resolve("a");
    Path b = root.resolve("b");
    Path c = root.resolve("c");
    Set<BlockId> used = new HashSet<>();
    BlockId kept;
    try (BlockManager bm = opener(kind).apply(List.of(a, b))) {
      List<BlockId> ids = create(bm, 6);
      used.addAll(ids);
      // The highest ids go: only the high-water mark remembers them.
      kept = ids.get(0);
      BlockManager.DeletionTransaction del = bm.newDeletion();
      ids.subList(1, 6).forEach(del::add);
      del.commit();
    }
    for (List<Path> dirs : List.of(List.of(b, a), List.of(c, b, a), List.of(a, c, b))) {
      try (BlockManager bm = opener(kind).apply(dirs)) {
        assertThat(bm.openBlock(kept).readAll()).as("block %s with dirs %s", kept, dirs)
            .containsExactly(0, 2, 3);
        for (BlockId id : create(bm, 2)) {
          assertThat(used.add(id)).as("block id %s handed out again with dirs %s", id, dirs)
              .isTrue();
        }
      }
    }
  }

  @ParameterizedTest(name = "{0} block manager")
  @ValueSource(strings = {"log", "file"})
  void aBadHighWaterMarkIsACorruptionNamingTheFile(String kind) throws Exception {
    Path a = root.resolve("a");
    try (BlockManager bm = opener(kind).apply(List.of(a))) {
      create(bm, 1);
    }
    Path hwm = a.resolve("block_id_hwm");
    assertThat(hwm).exists();
    Files.writeString(hwm, "12x4\n");
    assertThatThrownBy(() -> opener(kind).apply(List.of(a)))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining(hwm.toString())
        .hasMessageContaining("12x4");
  }

  @Test
  void strayFilesInALogBlockDirAreLeftAlone() throws Exception {
    Path a = root.resolve("a");
    BlockId id;
    try (BlockManager bm = opener("log").apply(List.of(a))) {
      id = create(bm, 1).get(0);
    }
    Path notes = Files.writeString(a.resolve("notes.data"), "an operator's file");
    Path readme = Files.writeString(a.resolve("README"), "x");
    Path lostFound = Files.createDirectories(a.resolve("lost+found"));
    Path oddMeta = Files.createDirectories(a.resolve("odd.metadata"));
    try (BlockManager bm = opener("log").apply(List.of(a))) {
      assertThat(bm.openBlock(id).readAll()).containsExactly(0, 2, 3);
    }
    assertThat(notes).hasContent("an operator's file");
    assertThat(readme).exists();
    assertThat(lostFound).isDirectory();
    assertThat(oddMeta).isDirectory();
  }

  @Test
  void strayFilesInAFileBlockTreeAreLeftAlone() throws Exception {
    Path a = root.resolve("a");
    BlockId id;
    try (BlockManager bm = opener("file").apply(List.of(a))) {
      id = create(bm, 1).get(0);
    }
    Path h2;
    try (var s = Files.walk(a)) {
      h2 = s.filter(p -> p.getFileName().toString().equals(String.format("%016x", id.value())))
          .findFirst().orElseThrow().getParent();
    }
    Path stray = Files.writeString(h2.resolve("notes.txt"), "x");
    Path strayTmp = Files.writeString(h2.resolve("notes.tmp"), "x");
    Path fileAsDir = Files.writeString(h2.getParent().resolve("zz"), "x");
    Path hexFileAsDir = Files.writeString(h2.getParent().resolve("ab"), "x");
    try (BlockManager bm = opener("file").apply(List.of(a))) {
      assertThat(bm.openBlock(id).readAll()).containsExactly(0, 2, 3);
    }
    assertThat(stray).exists();
    assertThat(strayTmp).exists();
    assertThat(fileAsDir).exists();
    assertThat(hexFileAsDir).exists();
  }
}
