package io.nyala.tserver.fs.log;

import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.ReadWriteFile;
import io.nyala.common.security.KeyMaterial;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Shared setup: the four variants (replay mode × encryption) and block helpers. */
final class LbmFixture {
  private LbmFixture() {}

  /** Streaming/in-memory × plain/encrypted, as JUnit arguments. */
  static Stream<Arguments> variants() {
    return Stream.of(Arguments.of(false, false), Arguments.of(true, false),
        Arguments.of(false, true), Arguments.of(true, true));
  }

  static Env env(boolean encrypted) {
    return encrypted ? Env.encrypted(KeyMaterial.random(256), 256) : Env.plain();
  }

  static LbmOptions options(Env env, boolean inMemory, Path... dirs) {
    return LbmOptions.defaults(env, List.of(dirs))
        .withInmemThreshold(inMemory ? LbmOptions.DEFAULT_INMEM_THRESHOLD : 0);
  }

  /** Creates {@code n} blocks in one transaction; block i holds {@code content(id)}. */
  static List<BlockId> create(BlockManager bm, int n, int size) {
    try (BlockManager.CreationTransaction tx = bm.newCreation()) {
      for (int i = 0; i < n; i++) {
        BlockManager.WritableBlock b = tx.create();
        b.append(content(b.id(), size));
        b.finalizeBlock();
      }
      return tx.commit();
    }
  }

  static byte[] content(BlockId id, int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (id.value() * 31 + i);
    }
    return b;
  }

  static void delete(BlockManager bm, List<BlockId> ids) {
    BlockManager.DeletionTransaction tx = bm.newDeletion();
    ids.forEach(tx::add);
    tx.commit();
  }

  /** Sets a file's logical size (cuts, or extends with bytes that read as zeros). */
  static void setLogicalSize(Env env, Path p, long size) {
    try (ReadWriteFile f = env.newReadWriteFile(p, OpenOptions.SENSITIVE.withMode(
        OpenMode.OPEN_EXISTING))) {
      f.truncate(size);
      f.sync();
    }
  }

  static long logicalSize(Env env, Path p) {
    try (var f = env.newRandomReadFile(p, OpenOptions.SENSITIVE)) {
      return f.size();
    }
  }

  /** Appends raw records through the Env, for damage a correct writer never makes. */
  static void appendRecords(Env env, Path meta, byte[] records) {
    try (var w = env.newWritableFile(meta, OpenOptions.SENSITIVE.withMode(
        OpenMode.OPEN_EXISTING))) {
      w.append(records);
      w.sync();
    }
  }

  static List<Path> metadataFiles(Env env, Path dir) {
    List<Path> out = new ArrayList<>();
    for (String n : env.listDir(dir)) {
      if (n.endsWith(".metadata")) {
        out.add(dir.resolve(n));
      }
    }
    return out;
  }
}
