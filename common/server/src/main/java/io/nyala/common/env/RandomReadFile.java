package io.nyala.common.env;

import io.nyala.common.NyalaException;
import java.nio.file.Path;

/** A file read at arbitrary logical offsets (pread); thread-safe. */
public interface RandomReadFile extends AutoCloseable {
  Path path();

  /** Whether the file has an encryption header (offsets stay logical either way). */
  boolean isEncrypted();

  /** Reads up to {@code len} bytes at {@code offset}; fewer only at end of file, -1 past it. */
  int read(long offset, byte[] b, int off, int len);

  /** Reads exactly {@code len} bytes at {@code offset}; CORRUPTION if the file ends first. */
  default void readFully(long offset, byte[] b, int off, int len) {
    int done = 0;
    while (done < len) {
      int n = read(offset + done, b, off + done, len - done);
      if (n <= 0) {
        throw NyalaException.corruption("%s: short read at offset %d: wanted %d bytes, file has "
            + "%d", path(), offset, len, size());
      }
      done += n;
    }
  }

  /** {@code len} bytes at {@code offset}; CORRUPTION if the file ends first. */
  default byte[] readFully(long offset, int len) {
    byte[] b = new byte[len];
    readFully(offset, b, 0, len);
    return b;
  }

  /** Logical size in bytes (without the encryption header). */
  long size();

  @Override
  void close();
}
