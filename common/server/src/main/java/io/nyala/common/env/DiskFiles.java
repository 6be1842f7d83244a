package io.nyala.common.env;

import java.nio.file.Path;

/** The file types of {@link DiskEnv}: thin views over a {@link FileBackend}. */
final class DiskFiles {
  private DiskFiles() {}

  /** Forward reads; the position is the only state. */
  static final class Sequential implements SequentialFile {
    private final FileBackend io;
    /** Logical read position; single-threaded by contract. */
    private long pos;

    Sequential(FileBackend io) {
      this.io = io;
    }

    @Override
    public Path path() {
      return io.path();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      int n = io.read(pos, b, off, len);
      if (n > 0) {
        pos += n;
      }
      return n;
    }

    @Override
    public long skip(long n) {
      long s = Math.max(0, Math.min(n, io.size() - pos));
      pos += s;
      return s;
    }

    @Override
    public void close() {
      io.close();
    }
  }

  /** Positional reads, and writes for the read-write flavour. */
  static final class ReadWrite implements ReadWriteFile {
    private final FileBackend io;

    ReadWrite(FileBackend io) {
      this.io = io;
    }

    @Override
    public Path path() {
      return io.path();
    }

    @Override
    public boolean isEncrypted() {
      return io.isEncrypted();
    }

    @Override
    public int read(long offset, byte[] b, int off, int len) {
      return io.read(offset, b, off, len);
    }

    @Override
    public long size() {
      return io.size();
    }

    @Override
    public void write(long offset, byte[] b, int off, int len) {
      io.write(offset, b, off, len, true);
    }

    @Override
    public void truncate(long logicalSize) {
      io.truncate(logicalSize);
    }

    @Override
    public void sync() {
      io.sync();
    }

    @Override
    public void close() {
      io.close();
    }

    @Override
    public String toString() {
      return "ReadWriteFile[" + io.path() + (io.isEncrypted() ? ", encrypted]" : "]");
    }
  }

  /** Appends; the size is tracked here so an append needs no stat. */
  static final class Writable implements WritableFile {
    private final FileBackend io;
    /** Logical size; single-threaded by contract. */
    private long size;

    Writable(FileBackend io) {
      this.io = io;
      this.size = io.size();
    }

    @Override
    public Path path() {
      return io.path();
    }

    @Override
    public void append(byte[] b, int off, int len) {
      io.write(size, b, off, len, false);
      size += len;
    }

    @Override
    public void sync() {
      io.sync();
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public void close() {
      io.close();
    }
  }
}
