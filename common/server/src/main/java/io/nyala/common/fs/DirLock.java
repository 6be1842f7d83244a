package io.nyala.common.fs;

import io.nyala.common.NyalaException;
import io.nyala.common.env.DurableDirs;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An exclusive lock on each of a server's directories (a {@code lock} file in each, locked with
 * {@code flock}-style OS locks), so that two servers, or a server and an offline tool that
 * changes its files, never work on one directory at once (see docs/data-safety.md, "File
 * systems"). The OS drops the locks when the process dies; the files stay.
 */
public final class DirLock implements AutoCloseable {
  public static final String FILE = "lock";

  private final List<FileChannel> channels;

  private DirLock(List<FileChannel> channels) {
    this.channels = channels;
  }

  /**
   * Locks every dir of {@code dirs}, creating missing ones; ILLEGAL_STATE naming the dir when
   * another process (or another server in this JVM) holds it. {@code who} says what wants it.
   */
  public static DirLock acquire(List<Path> dirs, String who) {
    List<FileChannel> held = new ArrayList<>();
    try {
      for (Path d : dirs) {
        held.add(lockOne(d, who));
      }
    } catch (RuntimeException e) {
      held.forEach(DirLock::closeQuietly);
      throw e;
    }
    return new DirLock(held);
  }

  private static FileChannel lockOne(Path dir, String who) {
    DurableDirs.create(dir);
    Path f = dir.resolve(FILE);
    FileChannel ch;
    try {
      ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot open lock file " + f + ": " + e, e);
    }
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException e) {
      closeQuietly(ch);
      throw NyalaException.ioError("cannot lock " + f + ": " + e, e);
    }
    if (lock == null) {
      closeQuietly(ch);
      throw NyalaException.illegalState("%s: directory %s is in use by another server or tool "
          + "(%s is locked); stop it first", who, dir, f);
    }
    return ch;
  }

  /** Releases every lock. */
  @Override
  public void close() {
    channels.forEach(DirLock::closeQuietly);
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      // Closing releases the lock; a failure leaves nothing to undo.
    }
  }
}
