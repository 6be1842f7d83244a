package io.nyala.common.env;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * Positional logical I/O on one open file, plain or encrypted; what every file type of
 * {@link DiskEnv} is built on. Logical offset {@code o} is physical offset {@code header + o}.
 *
 * <p>Encrypted files must keep plain-file semantics for bytes nobody wrote (gaps left by a
 * pwrite past the end, extensions by truncate): they read as zeros. Whole aligned blocks there
 * stay zero ciphertext (the zero rule turns them into zeros; the file system may keep them as
 * holes); the partial blocks at the edges are written as encrypted zeros, because a partial
 * block at end of file, or a block that also holds data, is decrypted normally.
 *
 * <p>Interrupts do not reach the file. A {@link FileChannel} closes itself when a thread is
 * interrupted in (or enters) one of its operations, for every thread that shares it; a block
 * container is shared by many, and a server's clean stop interrupts its pools' threads. Unmasked,
 * one interrupted flush closed its container and failed every later write there as a disk
 * error. Every operation here clears the caller's interrupt flag first, reopens the file and
 * repeats the operation when the channel was closed under it by an interrupt (all of them are
 * positional, so repeating one is harmless), and sets the flag again before returning.
 */
final class FileBackend implements AutoCloseable {
  /** Largest piece encrypted or decrypted per cipher call: bounds the per-thread scratch. */
  private static final int CHUNK = 1 << 20;
  private static final int B = AesCtr.BLOCK;
  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[0]);
  /**
   * Reopens one operation may make. Each needs another interrupt arriving inside it (a pool's
   * shutdown interrupts each of its threads once, and each may close the shared channel), so
   * this bound only ends an operation that interrupts keep arriving at.
   */
  private static final int MAX_REOPENS = 64;

  private final Path path;
  /** Replaced only by {@link #reopen}, under this object's monitor. */
  private volatile FileChannel ch;
  /** Set by {@link #close}, under this object's monitor: a channel closed so stays closed. */
  private boolean closed;
  /** Null for a plain file. */
  private final AesCtr ctr;
  private final int header;
  /** Faults injected under this file's env; consulted before each write and sync. */
  private final DiskFaults faults;

  /** Whether the file was opened to write too (a reopen opens it the same way). */
  private final boolean writable;

  FileBackend(Path path, FileChannel ch, boolean writable, AesCtr ctr, DiskFaults faults) {
    this.path = path;
    this.ch = ch;
    this.writable = writable;
    this.ctr = ctr;
    this.faults = faults;
    this.header = ctr == null ? 0 : EncryptionHeader.SIZE;
  }

  Path path() {
    return path;
  }

  /** The channel now open on the file (a new one after a reopen). */
  FileChannel channel() {
    return ch;
  }

  boolean isEncrypted() {
    return ctr != null;
  }

  long size() {
    try {
      return Math.max(0, io(FileChannel::size) - header);
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
        io(c -> c.truncate(target));
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
      // fdatasync: it also flushes a changed file size, which appends need. After a reopen it
      // still syncs every page written before: dirty pages belong to the file, not to a channel.
      io(c -> {
        c.force(false);
        return null;
      });
    } catch (IOException e) {
      throw ioError("cannot sync", e);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    try {
      ch.close();
    } catch (IOException e) {
      throw ioError("cannot close", e);
    }
  }

  /** One operation on the channel; may be run again on a reopened channel. */
  private interface ChannelOp<T> {
    T run(FileChannel c) throws IOException;
  }

  /**
   * Runs {@code op} with this thread's interrupt flag cleared, again on a reopened channel when
   * an interrupt (this thread's or another's) closed the channel under it; the flag is set again
   * before returning if it was set at any point. A channel this backend closed stays closed.
   */
  private <T> T io(ChannelOp<T> op) throws IOException {
    boolean interrupted = Thread.interrupted();
    try {
      for (int reopens = 0; ; reopens++) {
        FileChannel c = ch;
        try {
          return op.run(c);
        } catch (ClosedChannelException e) {
          // ClosedByInterruptException (this thread) or AsynchronousCloseException (another's)
          interrupted |= Thread.interrupted();
          if (reopens >= MAX_REOPENS || !reopen(c)) {
            throw e;
          }
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Replaces {@code failed}, closed by an interrupt, with a new channel on the same file (one
   * thread does it; the others find it done). False if this backend was closed on purpose.
   */
  private synchronized boolean reopen(FileChannel failed) throws IOException {
    if (closed) {
      return false;
    }
    if (ch == failed && !failed.isOpen()) {
      Set<OpenOption> o = writable ? Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE)
          : Set.of(StandardOpenOption.READ);
      ch = FileChannel.open(path, o);
    }
    return true;
  }

  private long physSize() {
    try {
      return io(FileChannel::size);
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
    try {
      return io(c -> {
        ByteBuffer buf = ByteBuffer.wrap(b, off, len);
        while (buf.hasRemaining()) {
          int r = c.read(buf, phys + buf.position() - off);
          if (r < 0) {
            break;
          }
        }
        return buf.position() - off;
      });
    } catch (IOException e) {
      throw ioError("cannot read " + len + " bytes at physical offset " + phys, e);
    }
  }

  void pwriteRaw(long phys, byte[] b, int off, int len) {
    try {
      faults.check(DiskFaults.Op.WRITE, path);
      io(c -> {
        ByteBuffer buf = ByteBuffer.wrap(b, off, len);
        while (buf.hasRemaining()) {
          c.write(buf, phys + buf.position() - off);
        }
        return null;
      });
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
