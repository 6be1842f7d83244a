package io.nyala.common.env;

import java.nio.file.Path;

/** A file written by appending (new blocks, log segments); not thread-safe. */
public interface WritableFile extends AutoCloseable {
  Path path();

  void append(byte[] b, int off, int len);

  default void append(byte[] b) {
    append(b, 0, b.length);
  }

  /** Makes everything appended so far durable (fdatasync; the header too on a new file). */
  void sync();

  /** Logical size: bytes appended plus what the file held when opened. */
  long size();

  /** Closes without syncing: call {@link #sync()} first when the data must survive a crash. */
  @Override
  void close();
}
