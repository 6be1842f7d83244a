package io.nyala.minicluster.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How the benchmarks run: in {@code --work-dir} when given, else in a temp dir removed
 * afterwards, with a progress line on stderr fed by the body's {@code done} counter.
 */
final class ScratchRun {
  private ScratchRun() {}

  /** A benchmark body: works in {@code dir}, counting finished units in {@code done}. */
  interface Body<R> {
    R run(Path dir, AtomicLong done) throws Exception;
  }

  static <R> R run(Path workDir, String tempPrefix, String what, long total, long periodSeconds,
      Body<R> body) throws Exception {
    boolean temp = workDir == null;
    Path dir = temp ? Files.createTempDirectory(tempPrefix) : workDir;
    AtomicLong done = new AtomicLong();
    try (Progress p = new Progress(System.err, what, total, done::get, periodSeconds)) {
      return body.run(dir, done);
    } finally {
      if (temp) {
        LbmCommands.deleteTree(dir);
      }
    }
  }
}
