package io.nyala.tserver.fs.log;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.LoggerFactory;
import org.slf4j.Logger;

/**
 * Punches holes with {@code fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)} through JNA
 * on a descriptor of its own (Env files hide theirs). Elsewhere, or when the file system
 * refuses, it is a no-op that returns false, so the caller's counter shows it.
 */
final class HolePuncher {
  private static final Logger LOG = LoggerFactory.getLogger(HolePuncher.class);
  private static final int O_WRONLY = 1;
  private static final int FALLOC_FL_KEEP_SIZE = 1;
  private static final int FALLOC_FL_PUNCH_HOLE = 2;
  private static final LibC LIBC = load();
  private static volatile boolean warned;

  /** The libc calls used. */
  public interface LibC extends Library {
    int open(String path, int flags);

    int fallocate(int fd, int mode, long offset, long len);

    int close(int fd);
  }

  private HolePuncher() {}

  private static LibC load() {
    if (!Platform.isLinux()) {
      return null;
    }
    try {
      return Native.load("c", LibC.class);
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      LOG.warn("hole punching disabled: cannot load libc: {}", e.toString());
      return null;
    }
  }

  static boolean supported() {
    return LIBC != null;
  }

  /**
   * Punches each physical range {@code {offset, length, weight}} with one descriptor; returns
   * the summed weight (blocks freed) of the ranges the OS punched.
   */
  static long punch(Path file, List<long[]> ranges) {
    if (LIBC == null || ranges.isEmpty()) {
      return 0;
    }
    int fd = LIBC.open(file.toString(), O_WRONLY);
    if (fd < 0) {
      return 0;
    }
    long done = 0;
    try {
      for (long[] r : ranges) {
        int rc = LIBC.fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, r[0], r[1]);
        if (rc == 0) {
          done += r[2];
        } else if (!warned) {
          warned = true;
          LOG.warn("{}: fallocate(PUNCH_HOLE) failed (errno {}): holes are not punched", file,
              Native.getLastError());
        }
      }
      return done;
    } finally {
      LIBC.close(fd);
    }
  }
}
