package io.nyala.tserver.fs;

import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Hands out block ids below a persisted high-water mark, reserving them in chunks so that a
 * file write happens once per {@link #CHUNK} ids. "Max seen + 1" is not enough: when the
 * container holding the highest id is deleted, that id would come back.
 */
public final class BlockIdAllocator {
  static final String FILE = "block_id_hwm";
  static final long CHUNK = 1 << 16;
  private final Env env;
  private final Path file;
  /** Guarded by this. */
  private long next;
  private long reservedUntil;

  /** Resumes above both the persisted mark and {@code maxIdSeen} (ids found on disk). */
  public BlockIdAllocator(Env env, Path dir, long maxIdSeen) {
    this.env = env;
    this.file = dir.resolve(FILE);
    long hwm = 0;
    if (env.exists(file)) {
      hwm = Long.parseLong(new String(env.readFile(file, OpenOptions.NOT_SENSITIVE),
          StandardCharsets.US_ASCII).trim());
    }
    next = Math.max(hwm, maxIdSeen + 1);
    reservedUntil = next;
  }

  public synchronized BlockId next() {
    if (next >= reservedUntil) {
      reservedUntil = next + CHUNK;
      env.replaceFile(file, Long.toString(reservedUntil).getBytes(StandardCharsets.US_ASCII),
          OpenOptions.NOT_SENSITIVE);
    }
    return new BlockId(next++);
  }
}
