package io.nyala.common.fs;

import io.nyala.common.NyalaException;
import io.nyala.common.env.DurableDirs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Crash-safe whole-file replacement: temp file, fsync, rename, fsync of the directory. */
public final class AtomicFiles {
  private AtomicFiles() {}

  public static void write(Path target, byte[] data) {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    try {
      DurableDirs.create(target.getParent());
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer b = ByteBuffer.wrap(data);
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDir(target.getParent());
    } catch (IOException e) {
      throw NyalaException.ioError("cannot write " + target + ": " + e.getMessage(), e);
    }
  }

  /** Makes a directory's entries (creations, renames, deletions) durable. */
  public static void syncDir(Path dir) {
    DurableDirs.sync(dir);
  }

  /** Deletes a file tree; missing is fine. */
  public static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot delete " + root + ": " + e.getMessage(), e);
    }
  }
}
