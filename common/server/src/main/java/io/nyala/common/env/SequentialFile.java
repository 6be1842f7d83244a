package io.nyala.common.env;

import java.nio.file.Path;

/** A file read front to back (replaying a log, loading metadata). Not thread-safe. */
public interface SequentialFile extends AutoCloseable {
  Path path();

  /** Reads up to {@code len} bytes; fewer only at end of file; -1 at end of file. */
  int read(byte[] b, int off, int len);

  /** Skips up to {@code n} bytes; returns how many (fewer only at end of file). */
  long skip(long n);

  @Override
  void close();
}
