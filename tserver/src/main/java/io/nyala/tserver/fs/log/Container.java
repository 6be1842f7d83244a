package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.ReadWriteFile;
import io.nyala.common.env.WritableFile;
import java.nio.file.Path;
import java.util.List;

/**
 * One container: {@code <id>.data} holding blocks at file-system-block-aligned physical
 * offsets and {@code <id>.metadata}, its record file. Mutable state is guarded by the owning
 * {@link LogBlockManager}'s lock; files are opened lazily and kept open.
 */
final class Container {
  static final int FS_BLOCK = 4096;
  /** Bytes an encrypted Env puts before logical offset 0. */
  static final int ENCRYPTION_HEADER = 64;

  final Path dir;
  final String id;
  /** Physical minus logical offset: blocks are aligned physically so holes free whole blocks. */
  final int headerBytes;
  private final Env env;
  private ReadWriteFile data;
  private WritableFile meta;
  /** Next logical offset to write a block at; guarded by the manager's lock. */
  long nextOffset;
  /** CREATE records ever written (a container is full by count of them). */
  long created;
  long liveBlocks;
  long liveBytes;
  /** Blocks placed here whose transaction has neither committed nor abandoned them. */
  long pendingBlocks;
  boolean deleted;
  /**
   * A metadata append failed part-way: its bytes may be on disk at offsets the writer would
   * append at again, under the same file key. No more records go to this file in this process;
   * the next startup repairs the tail into a new file (docs/data-safety.md).
   */
  private volatile boolean metaBroken;
  /**
   * Physical offset up to which the data file is preallocated, as far as this process knows
   * (0 after a reopen: preallocating again is harmless). Touched only by the one writer of the
   * container at a time.
   */
  private long preallocatedEnd;

  Container(Env env, Path dir, String id, int headerBytes) {
    this.env = env;
    this.dir = dir;
    this.id = id;
    this.headerBytes = headerBytes;
  }

  Path dataPath() {
    return dir.resolve(id + ".data");
  }

  Path metaPath() {
    return dir.resolve(id + ".metadata");
  }

  /** Creates both files with a metadata header, durably. */
  static Container create(Env env, Path dir, String id) {
    Container c = new Container(env, dir, id, env.isEncrypting() ? ENCRYPTION_HEADER : 0);
    c.data = env.newReadWriteFile(c.dataPath(), OpenOptions.SENSITIVE.withMode(
        OpenMode.CREATE_NEW));
    c.meta = env.newWritableFile(c.metaPath(), OpenOptions.SENSITIVE.withMode(
        OpenMode.CREATE_NEW));
    c.meta.append(RecordFormat.header());
    c.data.sync();
    c.meta.sync();
    env.syncDir(dir);
    c.nextOffset = c.alignUp(0);
    return c;
  }

  /** The first logical offset at or after {@code off} whose physical offset is aligned. */
  long alignUp(long off) {
    long phys = off + headerBytes;
    return (phys + FS_BLOCK - 1) / FS_BLOCK * FS_BLOCK - headerBytes;
  }

  synchronized ReadWriteFile data() {
    if (data == null) {
      data = env.newReadWriteFile(dataPath(), OpenOptions.SENSITIVE.withMode(
          OpenMode.OPEN_EXISTING));
    }
    return data;
  }

  synchronized WritableFile meta() {
    if (meta == null) {
      meta = env.newWritableFile(metaPath(), OpenOptions.SENSITIVE.withMode(
          OpenMode.OPEN_EXISTING));
    }
    return meta;
  }

  /** Appends records and syncs them; after a failure, refuses (see {@link #metaBroken}). */
  synchronized void appendRecords(byte[] buf, int len) {
    if (metaBroken) {
      throw NyalaException.ioError(metaPath() + ": an earlier metadata append failed; no more "
          + "records are written to it until a restart repairs it", null);
    }
    try {
      meta().append(buf, 0, len);
      meta().sync();
    } catch (RuntimeException e) {
      metaBroken = true;
      throw e;
    }
  }

  /**
   * Before a write of logical {@code [start, end)}: when it would pass the preallocated end,
   * reserves at least {@code chunk} more bytes from there with {@code fallocate(KEEP_SIZE)}.
   * Returns the bytes the OS preallocated (0 when off, unsupported or refused).
   */
  long preallocateFor(long start, long end, long chunk) {
    long physEnd = end + headerBytes;
    if (chunk <= 0 || physEnd <= preallocatedEnd) {
      return 0;
    }
    long from = Math.max(preallocatedEnd, start + headerBytes);
    long len = Math.max(chunk, physEnd - from);
    // Advanced even if refused, so a file system without fallocate costs one try per chunk.
    preallocatedEnd = from + len;
    return Fallocate.apply(dataPath(), Fallocate.KEEP_SIZE,
        List.of(new Fallocate.Range(from, len, len)));
  }

  boolean isFull(LbmOptions o) {
    return metaBroken || nextOffset >= o.maxSize()
        || (o.maxBlocks() > 0 && created >= o.maxBlocks());
  }

  synchronized void close() {
    if (data != null) {
      data.close();
      data = null;
    }
    if (meta != null) {
      meta.close();
      meta = null;
    }
  }

  /** Closes and removes both files. */
  void deleteFiles() {
    close();
    deleted = true;
    if (env.exists(dataPath())) {
      env.deleteFile(dataPath());
    }
    if (env.exists(metaPath())) {
      env.deleteFile(metaPath());
    }
    env.syncDir(dir);
  }

  @Override
  public String toString() {
    return dir.resolve(id).toString();
  }
}
