package io.nyala.common.env;

/**
 * A file read and written at arbitrary logical offsets (container metadata, preallocated data
 * files). Bytes never written (gaps, extensions) read as zeros, encrypted or not. Concurrent
 * writes are safe when they do not share a 16-byte block: an encrypted unaligned write may
 * re-encrypt the zeros of its edge blocks (see {@code FileBackend}), which would race with a
 * neighbour writing the same block. Writes concurrent with {@link #truncate} are not safe.
 */
public interface ReadWriteFile extends RandomReadFile {
  /** Writes {@code len} bytes at {@code offset}, extending the file if needed. */
  void write(long offset, byte[] b, int off, int len);

  default void write(long offset, byte[] b) {
    write(offset, b, 0, b.length);
  }

  /** Sets the logical size, cutting or extending with zeros. */
  void truncate(long logicalSize);

  /** Makes all writes durable (fdatasync). */
  void sync();
}
