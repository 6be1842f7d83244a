package io.nyala.tserver.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link BlockManager} must do, written once and run per implementation (plain and
 * encrypted) by the subclasses. Each test gets its own root directory; {@link #reopen()} closes
 * and opens the same files again with the same key.
 */
@Timeout(120)
public abstract class BlockManagerContractTest {
  @TempDir
  protected Path root;

  private BlockManager bm;

  /** Opens the implementation under test on {@code root} (same env and key every time). */
  protected abstract BlockManager open(Path root);

  /** The manager under test, opened on first use. */
  protected final BlockManager bm() {
    if (bm == null) {
      bm = open(root);
    }
    return bm;
  }

  protected final BlockManager reopen() {
    bm().close();
    bm = open(root);
    return bm;
  }

  @AfterEach
  void closeManager() {
    if (bm != null) {
      bm.close();
    }
  }

  /** Deterministic content of block {@code id} of {@code size} bytes. */
  protected static byte[] content(BlockId id, int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (id.value() * 31 + i * 7);
    }
    return b;
  }

  @Test
  void largeBlockStreamsToDiskBeforeCommit() {
    byte[] chunk = new byte[64 << 10];
    long total = 64L << 20;
    BlockId id;
    try (BlockManager.CreationTransaction tx = bm().newCreation()) {
      BlockManager.WritableBlock b = tx.create();
      id = b.id();
      long before = bytesUnderRoot();
      for (long done = 0; done < total; done += chunk.length) {
        chunk[0] = (byte) (done >>> 16);
        b.append(chunk);
      }
      // The appended bytes are in a file already, not in a buffer waiting for commit.
      assertThat(bytesUnderRoot() - before).isGreaterThanOrEqualTo(total);
      b.finalizeBlock();
      tx.commit();
    }
    BlockManager.ReadableBlock r = reopen().openBlock(id);
    assertThat(r.size()).isEqualTo(total);
    byte[] got = new byte[chunk.length];
    for (long done = 0; done < total; done += 8 * chunk.length) {
      r.read(done, got, 0, got.length);
      chunk[0] = (byte) (done >>> 16);
      assertThat(got).as("chunk at %d", done).isEqualTo(chunk);
    }
  }

  @Test
  void abandonedTransactionLeavesNoBlocksAndUsesItsIds() {
    List<BlockId> kept = createBlocks(2, 3000);
    BlockId abandoned;
    try (BlockManager.CreationTransaction tx = bm().newCreation()) {
      BlockManager.WritableBlock b = tx.create();
      abandoned = b.id();
      b.append(content(abandoned, 100_000));
      b.finalizeBlock();
      BlockManager.WritableBlock unfinished = tx.create();
      unfinished.append(content(unfinished.id(), 5000));
    }
    assertThat(bm().blockIds()).containsExactlyInAnyOrderElementsOf(kept);
    assertThatThrownBy(() -> bm().openBlock(abandoned)).isInstanceOf(NyalaException.class)
        .hasMessageContaining(abandoned.toString());
    List<BlockId> after = createBlocks(1, 10);
    reopen();
    assertThat(bm().blockIds()).containsExactlyInAnyOrderElementsOf(
        Stream.concat(kept.stream(), after.stream()).toList());
    assertThat(bm().startupReport().problems()).isEmpty();
    for (BlockId id : kept) {
      assertThat(bm().openBlock(id).readAll()).isEqualTo(content(id, 3000));
    }
    assertThat(createBlocks(1, 10).get(0).value()).isGreaterThan(abandoned.value());
  }

  @Test
  void committedBlocksReadBackWholeAndAtRandomOffsets() {
    List<BlockId> ids = createBlocks(5, 20_000);
    assertThat(bm().blockIds()).containsExactlyInAnyOrderElementsOf(ids);
    Random rnd = new Random(ids.get(0).value());
    for (BlockId id : ids) {
      BlockManager.ReadableBlock r = bm().openBlock(id);
      byte[] want = content(id, 20_000);
      assertThat(r.id()).isEqualTo(id);
      assertThat(r.size()).isEqualTo(want.length);
      assertThat(r.readAll()).isEqualTo(want);
      for (int i = 0; i < 20; i++) {
        int off = rnd.nextInt(want.length);
        int len = rnd.nextInt(want.length - off + 1);
        byte[] got = new byte[len + 2];
        r.read(off, got, 1, len);
        assertThat(Arrays.copyOfRange(got, 1, len + 1)).as("[%d, +%d)", off, len)
            .isEqualTo(Arrays.copyOfRange(want, off, off + len));
      }
    }
  }

  @Test
  void blocksAreInvisibleUntilCommit() {
    try (BlockManager.CreationTransaction tx = bm().newCreation()) {
      BlockManager.WritableBlock b = tx.create();
      b.append(content(b.id(), 10));
      b.finalizeBlock();
      assertThat(bm().blockIds()).isEmpty();
      assertThat(bm().contains(b.id())).isFalse();
      assertNotFound(b.id());
      assertThat(tx.commit()).containsExactly(b.id());
      assertThat(bm().contains(b.id())).isTrue();
    }
    assertThat(bm().blockIds()).hasSize(1);
  }

  @Test
  void emptyBlockAndEmptyTransaction() {
    try (BlockManager.CreationTransaction tx = bm().newCreation()) {
      assertThat(tx.commit()).isEmpty();
    }
    BlockId id = createBlocks(1, 0).get(0);
    assertThat(bm().openBlock(id).size()).isZero();
    assertThat(reopen().openBlock(id).readAll()).isEmpty();
  }

  @Test
  void deletionRemovesBlocksDurably() {
    List<BlockId> ids = createBlocks(6, 5000);
    BlockManager.DeletionTransaction del = bm().newDeletion();
    ids.subList(0, 4).forEach(del::add);
    assertThat(del.commit()).containsExactlyElementsOf(ids.subList(0, 4));
    assertThat(bm().blockIds()).containsExactlyInAnyOrderElementsOf(ids.subList(4, 6));
    reopen();
    assertThat(bm().blockIds()).containsExactlyInAnyOrderElementsOf(ids.subList(4, 6));
    ids.subList(0, 4).forEach(this::assertNotFound);
    for (BlockId id : ids.subList(4, 6)) {
      assertThat(bm().openBlock(id).readAll()).isEqualTo(content(id, 5000));
    }
  }

  @Test
  void unknownAndDeletedIdsAreNotFound() {
    BlockId id = createBlocks(1, 10).get(0);
    assertNotFound(new BlockId(id.value() + 1000));
    assertThat(bm().contains(new BlockId(id.value() + 1000))).isFalse();
    BlockManager.DeletionTransaction del = bm().newDeletion();
    del.add(id);
    del.commit();
    assertNotFound(id);
    assertThat(bm().contains(id)).isFalse();
    BlockManager.DeletionTransaction again = bm().newDeletion();
    again.add(id);
    assertThatThrownBy(again::commit).isInstanceOf(NyalaException.class)
        .hasMessageContaining(id.toString())
        .satisfies(e -> assertThat(((NyalaException) e).code()).isEqualTo(StatusCode.NOT_FOUND));
  }

  @Test
  void idsStayUniqueAcrossReopensEvenAfterDeletingTheNewest() {
    Set<BlockId> seen = new HashSet<>();
    for (int round = 0; round < 3; round++) {
      List<BlockId> ids = createBlocks(3, 100);
      for (BlockId id : ids) {
        assertThat(seen.add(id)).as("id %s reused in round %d", id, round).isTrue();
      }
      BlockManager.DeletionTransaction del = bm().newDeletion();
      ids.forEach(del::add);
      del.commit();
      reopen();
    }
  }

  @Test
  void manyBlocksInManyTransactions() {
    Map<BlockId, Integer> sizes = new HashMap<>();
    for (int t = 0; t < 10; t++) {
      int size = 1 + t * 97;
      createBlocks(50, size).forEach(id -> sizes.put(id, size));
    }
    reopen();
    assertThat(bm().blockIds()).hasSize(500).isEqualTo(sizes.keySet());
    sizes.forEach((id, size) -> assertThat(bm().openBlock(id).readAll())
        .isEqualTo(content(id, size)));
  }

  @Test
  void concurrentTransactionsFromSeveralThreads() throws Exception {
    int threads = 4;
    bm();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<BlockId>>> results = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      for (int t = 0; t < threads; t++) {
        int size = 1000 + t * 333;
        results.add(pool.submit(() -> {
          start.await();
          List<BlockId> mine = new ArrayList<>();
          for (int i = 0; i < 10; i++) {
            mine.addAll(createBlocks(5, size));
          }
          return mine;
        }));
      }
      start.countDown();
      Map<BlockId, Integer> sizes = new HashMap<>();
      for (int t = 0; t < threads; t++) {
        int size = 1000 + t * 333;
        results.get(t).get(60, TimeUnit.SECONDS).forEach(id -> sizes.put(id, size));
      }
      assertThat(sizes).hasSize(threads * 50);
      reopen();
      assertThat(bm().blockIds()).isEqualTo(sizes.keySet());
      sizes.forEach((id, size) -> assertThat(bm().openBlock(id).readAll())
          .isEqualTo(content(id, size)));
    } finally {
      pool.shutdownNow();
    }
  }

  private void assertNotFound(BlockId id) {
    assertThatThrownBy(() -> bm().openBlock(id)).isInstanceOf(NyalaException.class)
        .hasMessageContaining(id.toString())
        .satisfies(e -> assertThat(((NyalaException) e).code()).isEqualTo(StatusCode.NOT_FOUND));
  }

  /** Creates {@code n} blocks of {@code size} bytes in one committed transaction. */
  protected final List<BlockId> createBlocks(int n, int size) {
    try (BlockManager.CreationTransaction tx = bm().newCreation()) {
      for (int i = 0; i < n; i++) {
        BlockManager.WritableBlock b = tx.create();
        b.append(content(b.id(), size));
        b.finalizeBlock();
      }
      return tx.commit();
    }
  }

  /** Sum of the lengths of all files under the root. */
  private long bytesUnderRoot() {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
