package io.nyala.tserver.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
