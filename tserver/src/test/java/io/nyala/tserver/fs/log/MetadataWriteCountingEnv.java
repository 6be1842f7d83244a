package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.RandomReadFile;
import io.nyala.common.env.ReadWriteFile;
import io.nyala.common.env.SequentialFile;
import io.nyala.common.env.WritableFile;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An env that counts the appends to and syncs of container metadata files, and can make the
 * next metadata append or data-file write fail part-way (as a full disk does); else delegates.
 */
final class MetadataWriteCountingEnv implements Env {
  private final Env env;
  final AtomicInteger appends = new AtomicInteger();
  final AtomicInteger syncs = new AtomicInteger();
  /** When >= 0, the next metadata append writes this many bytes, then fails. */
  final AtomicInteger failNextMetaAppendAfter = new AtomicInteger(-1);
  /** When >= 0, the next data-file write writes this many bytes, then fails. */
  final AtomicInteger failNextDataWriteAfter = new AtomicInteger(-1);

  MetadataWriteCountingEnv(Env env) {
    this.env = env;
  }

  void reset() {
    appends.set(0);
    syncs.set(0);
  }

  @Override
  public WritableFile newWritableFile(Path path, OpenOptions opts) {
    WritableFile f = env.newWritableFile(path, opts);
    if (!path.getFileName().toString().endsWith(".metadata")) {
      return f;
    }
    return new WritableFile() {
      @Override
      public Path path() {
        return f.path();
      }

      @Override
      public void append(byte[] b, int off, int len) {
        appends.incrementAndGet();
        int after = failNextMetaAppendAfter.getAndSet(-1);
        if (after < 0) {
          f.append(b, off, len);
          return;
        }
        // Part of the bytes reach the file, and the writer's idea of its end does not move.
        try (ReadWriteFile raw = env.newReadWriteFile(path, opts.withMode(
            OpenMode.OPEN_EXISTING))) {
          raw.write(f.size(), b, off, Math.min(after, len));
        }
        throw NyalaException.ioError(path + ": no space left on device (injected)", null);
      }

      @Override
      public void sync() {
        syncs.incrementAndGet();
        f.sync();
      }

      @Override
      public long size() {
        return f.size();
      }

      @Override
      public void close() {
        f.close();
      }
    };
  }

  @Override
  public boolean isEncrypting() {
    return env.isEncrypting();
  }

  @Override
  public SequentialFile newSequentialFile(Path path, OpenOptions opts) {
    return env.newSequentialFile(path, opts);
  }

  @Override
  public RandomReadFile newRandomReadFile(Path path, OpenOptions opts) {
    return env.newRandomReadFile(path, opts);
  }

  @Override
  public ReadWriteFile newReadWriteFile(Path path, OpenOptions opts) {
    ReadWriteFile f = env.newReadWriteFile(path, opts);
    return new ReadWriteFile() {
      @Override
      public void write(long offset, byte[] b, int off, int len) {
        int after = failNextDataWriteAfter.getAndSet(-1);
        if (after < 0) {
          f.write(offset, b, off, len);
          return;
        }
        f.write(offset, b, off, Math.min(after, len));
        throw NyalaException.ioError(path + ": no space left on device (injected)", null);
      }

      @Override
      public void truncate(long logicalSize) {
        f.truncate(logicalSize);
      }

      @Override
      public void sync() {
        f.sync();
      }

      @Override
      public Path path() {
        return f.path();
      }

      @Override
      public boolean isEncrypted() {
        return f.isEncrypted();
      }

      @Override
      public int read(long offset, byte[] b, int off, int len) {
        return f.read(offset, b, off, len);
      }

      @Override
      public long size() {
        return f.size();
      }

      @Override
      public void close() {
        f.close();
      }
    };
  }

  @Override
  public void deleteFile(Path path) {
    env.deleteFile(path);
  }

  @Override
  public void renameFile(Path from, Path to) {
    env.renameFile(from, to);
  }

  @Override
  public void syncDir(Path dir) {
    env.syncDir(dir);
  }

  @Override
  public boolean exists(Path path) {
    return env.exists(path);
  }

  @Override
  public List<String> listDir(Path dir) {
    return env.listDir(dir);
  }

  @Override
  public void createDirs(Path dir) {
    env.createDirs(dir);
  }

  @Override
  public void replaceFile(Path path, byte[] content, OpenOptions opts) {
    env.replaceFile(path, content, opts);
  }

  @Override
  public byte[] readFile(Path path, OpenOptions opts) {
    return env.readFile(path, opts);
  }
}
