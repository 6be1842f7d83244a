package io.nyala.tserver.fs.log;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code fallocate(2)} through JNA on a descriptor of its own (Env files hide theirs), for hole
 * punching and preallocation. Elsewhere, or when the file system refuses, each call is a no-op
 * that reports nothing done, so the callers' counters show it. Ranges are physical: the Env's
 * encryption header is the caller's business.
 */
final class Fallocate {
  private static final Logger LOG = LoggerFactory.getLogger(Fallocate.class);
  private static final int O_WRONLY = 1;
  static final int KEEP_SIZE = 1;
  static final int PUNCH_HOLE = 2;
  private static final LibC LIBC = load();
  private static volatile boolean warned;

  /** The libc calls used. */
  public interface LibC extends Library {
    int open(String path, int flags);

    int fallocate(int fd, int mode, long offset, long len);

    int close(int fd);
  }

  private Fallocate() {}

  private static LibC load() {
    if (!Platform.isLinux()) {
      return null;
    }
    try {
      return Native.load("c", LibC.class);
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      LOG.warn("fallocate disabled (no hole punching, no preallocation): cannot load libc: {}",
          e.toString());
      return null;
    }
  }

  static boolean supported() {
    return LIBC != null;
  }

  /**
   * A physical byte range of a file and what it counts for when the OS accepts it (blocks freed
   * by a punched hole, bytes preallocated).
   */
  record Range(long offset, long length, long weight) {}

  /**
   * Applies {@code mode} to each range with one descriptor; returns the summed weight of the
   * ranges the OS accepted.
   */
  static long apply(Path file, int mode, List<Range> ranges) {
    if (LIBC == null || ranges.isEmpty()) {
      return 0;
    }
    int fd = LIBC.open(file.toString(), O_WRONLY);
    if (fd < 0) {
      return 0;
    }
    long done = 0;
    try {
      for (Range r : ranges) {
        if (LIBC.fallocate(fd, mode, r.offset(), r.length()) == 0) {
          done += r.weight();
        } else if (!warned) {
          warned = true;
          LOG.warn("{}: fallocate(mode {}) failed (errno {}): holes are not punched or space not"
              + " preallocated on this file system", file, mode, Native.getLastError());
        }
      }
      return done;
    } finally {
      LIBC.close(fd);
    }
  }
}
