package io.nyala.tserver.fs.log;

import java.nio.file.Path;
import java.util.List;

/**
 * Punches holes with {@code fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)}; a no-op
 * returning 0 where {@link Fallocate} is unsupported or refused.
 */
final class HolePuncher {
  private HolePuncher() {}

  static boolean supported() {
    return Fallocate.supported();
  }

  /**
   * Punches each physical range with one descriptor; returns the summed weight (blocks freed) of
   * the ranges the OS punched.
   */
  static long punch(Path file, List<Fallocate.Range> ranges) {
    return Fallocate.apply(file, Fallocate.PUNCH_HOLE | Fallocate.KEEP_SIZE, ranges);
  }
}
