package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.env.Env;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * No container ever encrypts two plaintexts at one offset under one file key (see
 * docs/data-safety.md, "Keys and keystreams"): after an abandoned or crashed transaction, a
 * reopen, a metadata compaction or a repaired metadata tail. Proven on the raw files with
 * {@link CiphertextHistory}, observed after every step.
 */
@Timeout(60)
class KeystreamReuseTest {
  private static final int SIZE = 5000;

  @TempDir
  Path dir;

  private final Env env = LbmFixture.env(true);
  private final CiphertextHistory history = new CiphertextHistory();

  private LogBlockManager open(LbmOptions o) throws Exception {
    LogBlockManager bm = LogBlockManager.open(o);
    history.observe(dir);
    return bm;
  }

  private LbmOptions opts() {
    return LbmFixture.options(env, false, dir);
  }

  /** Writes and finalizes one block in {@code tx} without committing. */
  private static void writeUncommitted(BlockManager.CreationTransaction tx) {
    BlockManager.WritableBlock b = tx.create();
    b.append(LbmFixture.content(b.id(), SIZE));
    b.finalizeBlock();
  }

  /** Commits one block and checks it reads back and that no keystream was reused so far. */
  private BlockId writeAndCheck(LogBlockManager bm) throws Exception {
    BlockId id = LbmFixture.create(bm, 1, SIZE).get(0);
    history.observe(dir);
    byte[] back = new byte[SIZE];
    bm.openBlock(id).read(0, back, 0, SIZE);
    assertThat(back).isEqualTo(LbmFixture.content(id, SIZE));
    return id;
  }

  @Test
  void abandonedRangeIsNotReusedInThisProcess() throws Exception {
    try (LogBlockManager bm = open(opts())) {
      writeAndCheck(bm);
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        writeUncommitted(tx);
        history.observe(dir);
      }
      writeAndCheck(bm);
    }
  }

  @Test
  void abandonedRangeIsNotReusedAfterReopen() throws Exception {
    try (LogBlockManager bm = open(opts())) {
      writeAndCheck(bm);
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        writeUncommitted(tx);
        history.observe(dir);
      }
      bm.awaitHolePunching();
    }
    try (LogBlockManager bm = open(opts())) {
      writeAndCheck(bm);
    }
  }

  @Test
  void rangeOfATransactionCutByACrashIsNotReusedAfterReopen() throws Exception {
    LogBlockManager crashed = open(opts());
    writeAndCheck(crashed);
    // Never committed nor closed: the process dies with the bytes written.
    writeUncommitted(crashed.newCreation());
    history.observe(dir);
    crashed.close();
    try (LogBlockManager bm = open(opts())) {
      writeAndCheck(bm);
      writeAndCheck(bm);
    }
  }

  @Test
  void rangesOfDeletedBlocksAreNotReusedAfterMetadataCompaction() throws Exception {
    LbmOptions o = opts().withMaxBlocks(4);
    List<BlockId> ids;
    try (LogBlockManager bm = open(o)) {
      ids = LbmFixture.create(bm, 4, SIZE);
      history.observe(dir);
      // The first block lives on; the three after it die, so the container is mostly dead.
      LbmFixture.delete(bm, ids.subList(1, 4));
      bm.awaitHolePunching();
      history.observe(dir);
    }
    try (LogBlockManager bm = open(o)) {
      assertThat(bm.startupReport().repairs()).anyMatch(r -> r.contains("metadata compacted"));
    }
    // The compacted metadata names only the first block; the data file still held the others.
    try (LogBlockManager bm = open(o)) {
      writeAndCheck(bm);
      assertThat(bm.contains(ids.get(0))).isTrue();
    }
  }

  @Test
  void repairedMetadataTailIsNotOverwrittenUnderTheSameKey() throws Exception {
    try (LogBlockManager bm = open(opts())) {
      writeAndCheck(bm);
    }
    // A crash tore the next CREATE record: its first bytes reached the disk, encrypted.
    byte[] record = new byte[RecordFormat.FRAME + RecordFormat.CREATE_SIZE];
    RecordFormat.putCreate(record, 0, 12345, 1 << 20, 77, 1);
    Path meta = LbmFixture.metadataFiles(env, dir).get(0);
    LbmFixture.appendRecords(env, meta, java.util.Arrays.copyOf(record, 20));
    history.observe(dir);
    try (LogBlockManager bm = open(opts())) {
      assertThat(bm.startupReport().repairs()).anyMatch(r -> r.contains("truncated to"));
      writeAndCheck(bm);
    }
  }

  @Test
  void bytesOfAWriteThatFailedPartWayAreNotOverwritten() throws Exception {
    MetadataWriteCountingEnv faulty = new MetadataWriteCountingEnv(env);
    try (LogBlockManager bm = open(LbmFixture.options(faulty, false, dir))) {
      writeAndCheck(bm);
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        BlockManager.WritableBlock b = tx.create();
        faulty.failNextDataWriteAfter.set(3000);
        assertThatThrownBy(() -> b.append(LbmFixture.content(b.id(), SIZE)))
            .hasMessageContaining("injected");
        history.observe(dir);
      }
      writeAndCheck(bm);
    }
  }

  @Test
  void recordsOfAMetadataAppendThatFailedPartWayAreNotOverwritten() throws Exception {
    MetadataWriteCountingEnv faulty = new MetadataWriteCountingEnv(env);
    try (LogBlockManager bm = open(LbmFixture.options(faulty, false, dir))) {
      BlockId kept = writeAndCheck(bm);
      faulty.failNextMetaAppendAfter.set(20);
      assertThatThrownBy(() -> LbmFixture.create(bm, 1, SIZE)).hasMessageContaining("injected");
      history.observe(dir);
      writeAndCheck(bm);
      assertThatThrownBy(() -> LbmFixture.delete(bm, List.of(kept)))
          .hasMessageContaining("earlier metadata append failed");
      history.observe(dir);
    }
    try (LogBlockManager bm = open(opts())) {
      writeAndCheck(bm);
    }
  }
}
