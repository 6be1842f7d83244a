package io.nyala.common.env;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Positional logical I/O on one open file, plain or encrypted; what every file type of
 * {@link DiskEnv} is built on. Logical offset {@code o} is physical offset {@code header + o}.
 *
 * <p>Encrypted files must keep plain-file semantics for bytes nobody wrote (gaps left by a
 * pwrite past the end, extensions by truncate): they read as zeros. Whole aligned blocks there
 * stay zero ciphertext (the zero rule turns them into zeros; the file system may keep them as
 * holes); the partial blocks at the edges are written as encrypted zeros, because a partial
 * block at end of file, or a block that also holds data, is decrypted normally.
 */
final class FileBackend implements AutoCloseable {
  /** Largest piece encrypted or decrypted per cipher call: bounds the per-thread scratch. */
  private static final int CHUNK = 1 << 20;
  private static final int B = AesCtr.BLOCK;
  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[0]);

  private final Path path;
  private final FileChannel ch;
  /** Null for a plain file. */
  private final AesCtr ctr;
  private final int header;
  /** Faults injected under this file's env; consulted before each write and sync. */
  private final DiskFaults faults;

  FileBackend(Path path, FileChannel ch, AesCtr ctr, DiskFaults faults) {
    this.path = path;
    this.ch = ch;
    this.ctr = ctr;
    this.faults = faults;
    this.header = ctr == null ? 0 : EncryptionHeader.SIZE;
  }

  Path path() {
    return path;
  }

  boolean isEncrypted() {
    return ctr != null;
  }

  long size() {
    try {
      return Math.max(0, ch.size() - header);
    } catch (IOException e) {
      throw ioError("cannot stat", e);
    }
  }

  /**
   * Reads up to {@code len} bytes at logical {@code off}; fewer only at end of file, -1 past it.
   */
  int read(long off, byte[] b, int bOff, int len) {
    if (len == 0) {
      return 0;
    }
    int total = 0;
    while (total < len) {
      int want = Math.min(len - total, CHUNK);
      int got = ctr == null ? pread(off + total, b, bOff + total, want)
          : readEncrypted(header + off + total, b, bOff + total, want);
      if (got <= 0) {
        break;
      }
      total += got;
      if (got < want) {
        break;
      }
    }
    return total == 0 ? -1 : total;
  }

  private int readEncrypted(long p0, byte[] b, int bOff, int n) {
    // Read the whole aligned blocks around the range: the zero rule judges whole blocks only.
    long start = p0 - p0 % B;
    int skip = (int) (p0 - start);
    int span = alignUp(skip + n);
    byte[] ct = scratch(span);
    int got = preadRaw(start, ct, 0, span);
    if (got <= skip) {
      return -1;
    }
    int avail = Math.min(n, got - skip);
    ctr.decrypt(start, ct, got, skip, b, bOff, avail);
    return avail;
  }

  /**
   * Writes {@code len} bytes at logical {@code off}. With {@code keepGapsZero} (pwrite), bytes
   * around the range that must read as zeros are first written as encrypted zeros; appends at
   * the end of the file skip that (there is nothing around them).
   */
  void write(long off, byte[] b, int bOff, int len, boolean keepGapsZero) {
    if (ctr == null) {
      pwrite(off, b, bOff, len);
      return;
    }
    long p0 = header + off;
    if (keepGapsZero && len > 0) {
      fillEdges(p0, p0 + len);
    }
    for (int done = 0; done < len; ) {
      int n = Math.min(len - done, CHUNK);
      byte[] ct = scratch(n);
      ctr.crypt(p0 + done, b, bOff + done, n, ct, 0);
      pwriteRaw(p0 + done, ct, 0, n);
      done += n;
    }
  }

  private void fillEdges(long p0, long p1) {
    long phys = physSize();
    long head = p0 - p0 % B;
    long tail = p1 - p1 % B;
    // Decide from the current contents before writing anything: head and tail may share a block.
    boolean headZeros = head < p0 && (head >= phys || (head + B <= phys && zeroBlockAt(head)));
    boolean tailZeros = tail < p1 && p1 < phys && tail + B <= phys
        && (tail == head ? headZeros : zeroBlockAt(tail));
    if (p0 > phys) {
      // The old last block's bytes past the old end now lie inside the file.
      writeZeros(phys, Math.min(alignUp(phys), p0));
    }
    if (headZeros) {
      writeZeros(head, p0);
    }
    if (tailZeros) {
      writeZeros(p1, tail + B);
    }
  }

  /** Sets the logical size; new bytes read as zeros. */
  void truncate(long logicalSize) {
    if (logicalSize < 0) {
      throw NyalaException.invalidArgument("%s: negative size %d", path, logicalSize);
    }
    long target = header + logicalSize;
    long phys = physSize();
    try {
      if (target < phys) {
        long t = target - target % B;
        // A zero-rule block cut short would decrypt to keystream: re-encrypt its zeros.
        boolean refill = ctr != null && t < target && t + B <= phys && zeroBlockAt(t);
        ch.truncate(target);
        if (refill) {
          writeZeros(t, target);
        }
      } else if (target > phys) {
        extend(phys, target);
      }
    } catch (IOException e) {
      throw ioError("cannot truncate to " + logicalSize + " bytes", e);
    }
  }

  private void extend(long phys, long target) {
    if (ctr == null) {
      // FileChannel cannot grow a file: write its last byte, the rest becomes a hole.
      pwrite(target - 1, new byte[1], 0, 1);
      return;
    }
    writeZeros(phys, Math.min(alignUp(phys), target));
    long last = Math.max(alignUp(phys), (target - 1) - (target - 1) % B);
    if (last < target) {
      writeZeros(last, target);
    }
  }

  private void writeZeros(long from, long to) {
    if (from >= to) {
      return;
    }
    int n = (int) (to - from);
    byte[] ct = new byte[n];
    ctr.crypt(from, ct, 0, n, ct, 0);
    pwriteRaw(from, ct, 0, n);
  }

  private boolean zeroBlockAt(long p) {
    byte[] blk = new byte[B];
    return preadRaw(p, blk, 0, B) == B && AesCtr.isZeroBlock(blk, 0);
  }

  void sync() {
    try {
      faults.check(DiskFaults.Op.SYNC, path);
      // fdatasync: it also flushes a changed file size, which appends need.
      ch.force(false);
    } catch (IOException e) {
      throw ioError("cannot sync", e);
    }
  }

  @Override
  public void close() {
    try {
      ch.close();
    } catch (IOException e) {
      throw ioError("cannot close", e);
    }
  }

  private long physSize() {
    try {
      return ch.size();
    } catch (IOException e) {
      throw ioError("cannot stat", e);
    }
  }

  private int pread(long logicalOff, byte[] b, int off, int len) {
    int got = preadRaw(header + logicalOff, b, off, len);
    return got == 0 && len > 0 ? -1 : got;
  }

  private void pwrite(long logicalOff, byte[] b, int off, int len) {
    pwriteRaw(header + logicalOff, b, off, len);
  }

  /** Reads until {@code len} bytes or end of file; returns the count (0 at EOF). */
  int preadRaw(long phys, byte[] b, int off, int len) {
    ByteBuffer buf = ByteBuffer.wrap(b, off, len);
    try {
      while (buf.hasRemaining()) {
        int r = ch.read(buf, phys + buf.position() - off);
        if (r < 0) {
          break;
        }
      }
    } catch (IOException e) {
      throw ioError("cannot read " + len + " bytes at physical offset " + phys, e);
    }
    return buf.position() - off;
  }

  void pwriteRaw(long phys, byte[] b, int off, int len) {
    ByteBuffer buf = ByteBuffer.wrap(b, off, len);
    try {
      faults.check(DiskFaults.Op.WRITE, path);
      while (buf.hasRemaining()) {
        ch.write(buf, phys + buf.position() - off);
      }
    } catch (IOException e) {
      throw ioError("cannot write " + len + " bytes at physical offset " + phys, e);
    }
  }

  private NyalaException ioError(String what, IOException e) {
    return NyalaException.ioError(path + ": " + what + ": " + e, e);
  }

  private static byte[] scratch(int n) {
    byte[] s = SCRATCH.get();
    if (s.length < n) {
      s = new byte[Math.max(n, Math.min(CHUNK + 2 * B, s.length * 2))];
      SCRATCH.set(s);
    }
    return s;
  }

  private static long alignUp(long p) {
    return (p + B - 1) / B * B;
  }

  private static int alignUp(int p) {
    return (p + B - 1) / B * B;
  }
}
