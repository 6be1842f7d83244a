package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each repair case of startup, made on real files, in all four variants. */
@Timeout(60)
class LogBlockManagerRepairTest {
  @TempDir
  Path root;

  private List<BlockId> seed(LbmOptions opts, int n) {
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      return LbmFixture.create(bm, n, 50);
    }
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void malformedRecordsAreReported(boolean inMemory, boolean encrypted) {
    Env env = LbmFixture.env(encrypted);
    Path dir = root.resolve("d");
    LbmOptions opts = LbmFixture.options(env, inMemory, dir);
    List<BlockId> ids = seed(opts, 3);
    Path meta = LbmFixture.metadataFiles(env, dir).get(0);
    byte[] recs = new byte[3 * (RecordFormat.FRAME + RecordFormat.CREATE_SIZE)];
    int p = RecordFormat.putCreate(recs, 0, ids.get(0).value(), 0, 50, 1);
    p = RecordFormat.putDelete(recs, p, 0xabcdefL);
    p = RecordFormat.putCreate(recs, p, 0x777L, 1 << 20, 50, 1);
    LbmFixture.appendRecords(env, meta, java.util.Arrays.copyOf(recs, p));
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.startupReport().problems()).hasSize(3)
          .anyMatch(s -> s.startsWith("block " + ids.get(0) + ": duplicate CREATE in " + meta))
          .anyMatch(s -> s.startsWith("block 0000000000abcdef: DELETE without CREATE"))
          .anyMatch(s -> s.startsWith("block 0000000000000777: CREATE beyond end of"));
      assertThat(bm.blockIds()).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(bm.openBlock(ids.get(0)).readAll()).isEqualTo(LbmFixture.content(ids.get(0),
          50));
    }
  }

  /**
   * Damage before the tail is CORRUPTION naming file and offset; the server still opens: the
   * damaged container is not trusted (none of its blocks is served, its files are left alone),
   * the other containers serve (docs/data-safety.md, "Damage is contained").
   */
  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void damageBeforeTheTailIsCorruptionNamingFileAndOffsetAndOnlyItsContainerIsDistrusted(
      boolean inMemory, boolean encrypted) throws Exception {
    Env env = LbmFixture.env(encrypted);
    Path d1 = root.resolve("d1");
    Path d2 = root.resolve("d2");
    LbmOptions opts = LbmFixture.options(env, inMemory, d1, d2);
    List<BlockId> ids = seed(opts, 6);
    Path meta = LbmFixture.metadataFiles(env, d1).get(0);
    byte[] raw = Files.readAllBytes(meta);
    int header = encrypted ? Container.ENCRYPTION_HEADER : 0;
    int second = RecordFormat.HEADER_SIZE + RecordFormat.FRAME + RecordFormat.CREATE_SIZE;
    raw[header + second + 10] ^= 1;
    Files.write(meta, raw);
    assertDistrusted(opts, meta, raw, second, ids);
  }

  /**
   * A bit flip in the last committed record is not a torn tail: the record is complete, so it
   * was committed; truncating it would silently drop a CREATE or DELETE.
   */
  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void aBitFlipInTheLastCommittedRecordIsCorruptionNotATornTail(boolean inMemory,
      boolean encrypted) throws Exception {
    Env env = LbmFixture.env(encrypted);
    Path d1 = root.resolve("d1");
    Path d2 = root.resolve("d2");
    LbmOptions opts = LbmFixture.options(env, inMemory, d1, d2);
    List<BlockId> ids = seed(opts, 6);
    Path meta = LbmFixture.metadataFiles(env, d1).get(0);
    long last = LbmFixture.logicalSize(env, meta) - RecordFormat.FRAME - RecordFormat.CREATE_SIZE;
    byte[] raw = Files.readAllBytes(meta);
    raw[raw.length - 10] ^= 0x10; // inside the last record's payload
    Files.write(meta, raw);
    assertDistrusted(opts, meta, raw, last, ids);
  }

  /** {@code meta}'s container is reported damaged at {@code offset} and left as it is. */
  private static void assertDistrusted(LbmOptions opts, Path meta, byte[] raw, long offset,
      List<BlockId> ids) throws Exception {
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.damagedContainers()).singleElement().satisfies(e -> {
        assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION);
        assertThat(e.getMessage()).contains(meta.toString()).contains("offset " + offset);
      });
      assertThat(bm.startupReport().problems())
          .anyMatch(p -> p.contains(meta.toString()) && p.contains("offset " + offset));
      assertThat(bm.startupReport().repairs()).isEmpty();
      List<BlockId> served = ids.stream().filter(bm::contains).toList();
      List<BlockId> lost = ids.stream().filter(id -> !bm.contains(id)).toList();
      assertThat(served).isNotEmpty();
      assertThat(lost).isNotEmpty();
      for (BlockId id : served) {
        assertThat(bm.openBlock(id).readAll()).isEqualTo(LbmFixture.content(id, 50));
      }
      assertThatThrownBy(() -> bm.openBlock(lost.get(0)))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
          .hasMessageContaining(meta.toString());
      // New blocks go to healthy or new containers, never to the damaged one.
      List<BlockId> more = LbmFixture.create(bm, 4, 50);
      assertThat(more).allMatch(bm::contains);
    }
    assertThat(Files.readAllBytes(meta)).isEqualTo(raw);
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void liveBlockInTwoContainersIsFatal(boolean inMemory, boolean encrypted) throws Exception {
    Env env = LbmFixture.env(encrypted);
    Path d1 = root.resolve("d1");
    Path d2 = root.resolve("d2");
    LbmOptions opts = LbmFixture.options(env, inMemory, d1, d2);
    List<BlockId> ids = seed(opts, 1);
    Path meta = LbmFixture.metadataFiles(env, d1).get(0);
    String id = meta.getFileName().toString().replace(".metadata", "");
    Files.copy(meta, d2.resolve("0000000000000001.metadata"));
    Files.copy(d1.resolve(id + ".data"), d2.resolve("0000000000000001.data"));
    assertThatThrownBy(() -> LogBlockManager.open(opts))
        .hasMessageContaining("block " + ids.get(0) + ": live in two containers");
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void incompleteAndOrphanedContainersAreDeleted(boolean inMemory, boolean encrypted)
      throws Exception {
    Env env = LbmFixture.env(encrypted);
    Path dir = root.resolve("d");
    LbmOptions opts = LbmFixture.options(env, inMemory, dir);
    List<BlockId> ids = seed(opts, 2);
    Files.write(dir.resolve("00000000000000aa.data"), new byte[0]);
    Files.write(dir.resolve("00000000000000bb.metadata"), new byte[5]);
    Files.write(dir.resolve("00000000000000bb.data"), new byte[0]);
    Container.create(env, dir, "00000000000000cc").close();
    Files.delete(dir.resolve("00000000000000cc.data"));
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.startupReport().repairs()).hasSize(3);
      assertThat(bm.blockIds()).containsExactlyInAnyOrderElementsOf(ids);
    }
    assertThat(env.listDir(dir)).noneMatch(n -> n.startsWith("00000000000000"));
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.startupReport().clean()).isTrue();
    }
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void checkWithoutRepairChangesNothing(boolean inMemory, boolean encrypted) throws Exception {
    Env env = LbmFixture.env(encrypted);
    Path dir = root.resolve("d");
    LbmOptions opts = LbmFixture.options(env, inMemory, dir);
    seed(opts, 2);
    Path meta = LbmFixture.metadataFiles(env, dir).get(0);
    long size = LbmFixture.logicalSize(env, meta);
    LbmFixture.setLogicalSize(env, meta, size + 3);
    try (LogBlockManager bm = LogBlockManager.open(opts.withRepair(false))) {
      assertThat(bm.startupReport().problems()).singleElement().asString()
          .contains("all-zero tail").contains("needs truncation");
    }
    assertThat(LbmFixture.logicalSize(env, meta)).isEqualTo(size + 3);
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void deadFullContainersAreDeletedAndIdsAreNotReused(boolean inMemory, boolean encrypted) {
    Env env = LbmFixture.env(encrypted);
    Path dir = root.resolve("d");
    LbmOptions opts = LbmFixture.options(env, inMemory, dir).withMaxBlocks(2);
    BlockId highest;
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      LbmFixture.create(bm, 2, 10);
      List<BlockId> ids = LbmFixture.create(bm, 2, 10);
      highest = ids.get(1);
      LbmFixture.delete(bm, ids);
      assertThat(bm.metrics().deadContainersDeleted()).isEqualTo(1);
      assertThat(bm.metrics().containers()).isEqualTo(1);
    }
    assertThat(LbmFixture.metadataFiles(env, dir)).hasSize(1);
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      BlockId next = LbmFixture.create(bm, 1, 10).get(0);
      assertThat(next.value()).isGreaterThan(highest.value());
    }
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void mostlyDeadFullContainerMetadataIsCompacted(boolean inMemory, boolean encrypted)
      throws Exception {
    Env env = LbmFixture.env(encrypted);
    Path dir = root.resolve("d");
    LbmOptions opts = LbmFixture.options(env, inMemory, dir).withMaxBlocks(10);
    List<BlockId> ids;
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      ids = LbmFixture.create(bm, 10, 100);
      LbmFixture.delete(bm, ids.subList(0, 6));
    }
    Path meta = LbmFixture.metadataFiles(env, dir).get(0);
    Files.write(dir.resolve("0000000000000099" + MetadataCompactor.TMP_SUFFIX), new byte[3]);
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.startupReport().repairs()).hasSize(2)
          .anyMatch(r -> r.contains("4 live of 10 created): metadata compacted"))
          .anyMatch(r -> r.contains("leftover of an interrupted compaction"));
      assertThat(bm.blockIds()).containsExactlyInAnyOrderElementsOf(ids.subList(6, 10));
    }
    assertThat(LbmFixture.logicalSize(env, meta))
        .isEqualTo(RecordFormat.HEADER_SIZE + 4 * (RecordFormat.FRAME + RecordFormat.CREATE_SIZE));
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      assertThat(bm.startupReport().clean()).as(bm.startupReport().toString()).isTrue();
      List<BlockId> more = LbmFixture.create(bm, 3, 100);
      for (BlockId id : ids.subList(6, 10)) {
        assertThat(bm.openBlock(id).readAll()).isEqualTo(LbmFixture.content(id, 100));
      }
      for (BlockId id : more) {
        assertThat(bm.openBlock(id).readAll()).isEqualTo(LbmFixture.content(id, 100));
      }
    }
  }

  @ParameterizedTest(name = "inMemory={0} encrypted={1}")
  @MethodSource("io.nyala.tserver.fs.log.LbmFixture#variants")
  void deadFullContainerLeftByACrashIsDeletedAtStartup(boolean inMemory, boolean encrypted) {
    Env env = LbmFixture.env(encrypted);
    Path dir = root.resolve("d");
    LbmOptions unlimited = LbmFixture.options(env, inMemory, dir);
    try (LogBlockManager bm = LogBlockManager.open(unlimited)) {
      // Not full under these options, so deleting every block keeps the files: the state a
      // crash between the DELETE records and the file deletion leaves behind.
      LbmFixture.delete(bm, LbmFixture.create(bm, 2, 10));
    }
    assertThat(LbmFixture.metadataFiles(env, dir)).hasSize(1);
    try (LogBlockManager bm = LogBlockManager.open(unlimited.withMaxBlocks(2))) {
      assertThat(bm.startupReport().repairs()).singleElement().asString()
          .contains("full container with no live blocks: deleted");
      assertThat(bm.blockIds()).isEmpty();
    }
    assertThat(env.listDir(dir)).noneMatch(n -> n.endsWith(".data") || n.endsWith(".metadata"));
  }
}
