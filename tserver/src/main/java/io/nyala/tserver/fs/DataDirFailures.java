package io.nyala.tserver.fs;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.DiskFaults;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which data dirs of a block manager failed (docs/data-safety.md, "Disk faults"). A write or
 * sync that fails with an I/O error other than a full disk (EIO) marks its dir failed: after a
 * failed fsync the kernel may have dropped the dirty pages, so nothing written there since the
 * last good sync can be trusted to be on disk, and later syncs may wrongly succeed. A failed dir
 * takes no new blocks until the server restarts; blocks already committed there are still read.
 * A full disk (ENOSPC) fails only the operation: space may come back. Not persisted: a restart
 * tries the dir again, as Kudu does for a dir whose fault was transient. Thread-safe.
 */
public final class DataDirFailures {
  private static final Logger LOG = LoggerFactory.getLogger(DataDirFailures.class);

  /** Why each failed dir failed (the first error seen there). */
  private final ConcurrentHashMap<Path, String> failed = new ConcurrentHashMap<>();
  private final AtomicLong noSpaceErrors = new AtomicLong();

  /**
   * Notes that {@code what} (e.g. "data sync") failed in {@code dir} with {@code e}: an I/O
   * error marks the dir failed, a full disk is counted. Returns {@code e} for the caller to throw.
   */
  public RuntimeException onError(Path dir, String what, RuntimeException e) {
    NyalaException ne = NyalaException.from(e);
    if (ne.code() != StatusCode.IO_ERROR || !fromFileSystem(e)) {
      return e; // e.g. a container refusing appends after an earlier failure: counted then
    }
    if (DiskFaults.isNoSpace(e)) {
      noSpaceErrors.incrementAndGet();
      LOG.error("data dir {} is full: {} failed: {}", dir, what, ne.detail());
      return e;
    }
    if (failed.putIfAbsent(dir, what + ": " + ne.detail()) == null) {
      LOG.error("data dir {} FAILED: {} failed: {}; it takes no new blocks until the server "
          + "restarts (tablets whose flush failed there go FAILED and are re-replicated)", dir,
          what, ne.detail());
    }
    return e;
  }

  /** Runs {@code op}, an operation on a file in {@code dir} (see {@link #onError}). */
  public void run(Path dir, String what, Runnable op) {
    try {
      op.run();
    } catch (RuntimeException e) {
      throw onError(dir, what, e);
    }
  }

  /** {@link #run} for an operation with a result. */
  public <T> T call(Path dir, String what, Supplier<T> op) {
    try {
      return op.get();
    } catch (RuntimeException e) {
      throw onError(dir, what, e);
    }
  }

  /** Whether the file system itself reported the error (an IOException among the causes). */
  private static boolean fromFileSystem(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  public boolean isFailed(Path dir) {
    return failed.containsKey(dir);
  }

  /** The failed dirs and why each failed. */
  public Set<Path> failedDirs() {
    return Set.copyOf(failed.keySet());
  }

  /** Why {@code dir} failed, or null if it did not. */
  public String why(Path dir) {
    return failed.get(dir);
  }

  public int failedCount() {
    return failed.size();
  }

  /** Writes and syncs that failed on a full disk so far. */
  public long noSpaceErrors() {
    return noSpaceErrors.get();
  }

  /** IO_ERROR saying every data dir failed, so no block can be created. */
  public NyalaException allFailed() {
    return NyalaException.ioError("no healthy data dir to create a block in: every data dir "
        + "failed: " + failed, null);
  }
}
