package io.nyala.common.env;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Directory creation that survives a crash: a new directory's entry lives in its parent, so the
 * parent of each directory created is synced too (see docs/data-safety.md, "File systems").
 * Without it a crash can lose a just-created directory and every file synced inside it.
 */
public final class DurableDirs {
  private DurableDirs() {}

  /** Creates {@code dir} and its missing parents, syncing the parent of each one created. */
  public static void create(Path dir) {
    Path abs = dir.toAbsolutePath();
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = abs; p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    for (Path p : missing) {
      try {
        Files.createDirectory(p);
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(p)) {
          throw NyalaException.ioError("cannot create directory " + p + ": a file of that name "
              + "exists", e);
        }
        continue; // created concurrently: its creator syncs the parent
      } catch (IOException e) {
        throw NyalaException.ioError("cannot create directory " + dir + ": " + e, e);
      }
      sync(p.getParent());
    }
  }

  /**
   * Makes a directory's entries (creations, renames, deletions) durable. The caller's interrupt
   * flag is cleared for the sync and set again after: an interrupt would close the channel
   * and fail the sync (see {@code FileBackend}); an interrupt that closes it mid-sync makes it
   * sync again.
   */
  public static void sync(Path dir) {
    boolean interrupted = Thread.interrupted();
    try {
      for (int attempt = 0; ; attempt++) {
        FileChannel ch;
        try {
          ch = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (IOException e) {
          // Some file systems cannot open a directory; its entries are as durable as they get.
          return;
        }
        try (ch) {
          ch.force(true);
          return;
        } catch (ClosedChannelException e) {
          interrupted |= Thread.interrupted();
          if (attempt >= 3) {
            throw NyalaException.ioError("cannot sync directory " + dir + ": " + e, e);
          }
        } catch (IOException e) {
          throw NyalaException.ioError("cannot sync directory " + dir + ": " + e, e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
