package io.nyala.tserver.fs;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Hands out block ids below a persisted high-water mark, reserving them in chunks so that a
 * file write happens once per {@link #CHUNK} ids. "Max seen + 1" is not enough: when the
 * container holding the highest id is deleted, that id would come back.
 *
 * <p>The mark is written to every block dir and read as the maximum over all of them, so that
 * reordering, adding or losing a dir can never bring an id back (see docs/data-safety.md, "File
 * systems"). Each write is a crash-safe replace (temp file, fsync, rename, directory fsync).
 */
public final class BlockIdAllocator {
  public static final String FILE = "block_id_hwm";
  static final long CHUNK = 1 << 16;
  private final Env env;
  private final List<Path> files;
  /** Guarded by this. */
  private long next;
  private long reservedUntil;

  /** Resumes above both the persisted marks of {@code dirs} and {@code maxIdSeen} (on disk). */
  public BlockIdAllocator(Env env, List<Path> dirs, long maxIdSeen) {
    this.env = env;
    this.files = dirs.stream().map(d -> d.resolve(FILE)).toList();
    long hwm = 0;
    for (Path f : files) {
      if (env.exists(f)) {
        hwm = Math.max(hwm, read(env, f));
      }
    }
    next = Math.max(hwm, maxIdSeen + 1);
    reservedUntil = next;
  }

  /** The mark in {@code f}; CORRUPTION naming the file when it is not a non-negative number. */
  static long read(Env env, Path f) {
    String s = new String(env.readFile(f, OpenOptions.NOT_SENSITIVE), StandardCharsets.US_ASCII)
        .trim();
    try {
      long v = Long.parseLong(s);
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    String shown = s.length() > 40 ? s.substring(0, 40) + "..." : s;
    throw NyalaException.corruption("block id high-water mark %s is corrupt: '%s' is not a "
        + "block id; it must be restored (a lower mark could reuse block ids)", f,
        shown.replaceAll("[^\\x20-\\x7e]", "?"));
  }

  public synchronized BlockId next() {
    if (next >= reservedUntil) {
      reservedUntil = next + CHUNK;
      byte[] mark = Long.toString(reservedUntil).getBytes(StandardCharsets.US_ASCII);
      for (Path f : files) {
        env.replaceFile(f, mark, OpenOptions.NOT_SENSITIVE);
      }
    }
    return new BlockId(next++);
  }
}
