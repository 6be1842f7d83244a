package io.nyala.tserver.fs.log;

import io.nyala.common.env.Env;
import java.nio.file.Path;
import java.util.List;

/**
 * Configuration of a {@link LogBlockManager}; field names follow the flags.
 *
 * @param dataDirs {@code --fs_data_dirs}
 * @param maxSize {@code --log_container_max_size}, bytes of a data file before it is full
 *     (default 10 GiB)
 * @param maxBlocks {@code --log_container_max_blocks}, CREATE records before a container is
 *     full; -1 = unlimited
 * @param inmemReplayThresholdBytes {@code --log_container_metadata_inmem_replay_threshold_bytes}:
 *     metadata files up to this size are replayed from one bulk read; 0 = always stream
 * @param dataFsync {@code --enable_data_block_fsync}
 * @param repair whether opening may change files; false only reports (fs check)
 * @param preallocateBytes {@code --log_container_preallocate_bytes} (default 32 MiB, 0 = off):
 *     when a data file is about to grow past its preallocated end, this much more is reserved
 *     with {@code fallocate(FALLOC_FL_KEEP_SIZE)}, so the file length stays the logical size
 *     and appends do not fragment the file
 */
public record LbmOptions(Env env, List<Path> dataDirs, long maxSize, long maxBlocks,
    long inmemReplayThresholdBytes, boolean dataFsync, boolean repair, long preallocateBytes) {
  public static final long DEFAULT_MAX_SIZE = 10L << 30;
  public static final long DEFAULT_INMEM_THRESHOLD = 64L << 20;
  public static final long DEFAULT_PREALLOCATE_BYTES = 32L << 20;

  public LbmOptions {
    dataDirs = List.copyOf(dataDirs);
    if (dataDirs.isEmpty()) {
      throw new IllegalArgumentException("--fs_data_dirs is empty");
    }
    if (preallocateBytes < 0) {
      throw new IllegalArgumentException(
          "--log_container_preallocate_bytes must be >= 0, not " + preallocateBytes);
    }
  }

  /** Defaults for the given env and directories. */
  public static LbmOptions defaults(Env env, List<Path> dirs) {
    return new LbmOptions(env, dirs, DEFAULT_MAX_SIZE, -1, DEFAULT_INMEM_THRESHOLD, true, true,
        DEFAULT_PREALLOCATE_BYTES);
  }

  public LbmOptions withInmemThreshold(long bytes) {
    return new LbmOptions(env, dataDirs, maxSize, maxBlocks, bytes, dataFsync, repair,
        preallocateBytes);
  }

  public LbmOptions withMaxBlocks(long n) {
    return new LbmOptions(env, dataDirs, maxSize, n, inmemReplayThresholdBytes, dataFsync, repair,
        preallocateBytes);
  }

  public LbmOptions withMaxSize(long n) {
    return new LbmOptions(env, dataDirs, n, maxBlocks, inmemReplayThresholdBytes, dataFsync, repair,
        preallocateBytes);
  }

  public LbmOptions withDataFsync(boolean f) {
    return new LbmOptions(env, dataDirs, maxSize, maxBlocks, inmemReplayThresholdBytes, f, repair,
        preallocateBytes);
  }

  public LbmOptions withRepair(boolean r) {
    return new LbmOptions(env, dataDirs, maxSize, maxBlocks, inmemReplayThresholdBytes, dataFsync,
        r, preallocateBytes);
  }

  public LbmOptions withPreallocateBytes(long bytes) {
    return new LbmOptions(env, dataDirs, maxSize, maxBlocks, inmemReplayThresholdBytes, dataFsync,
        repair, bytes);
  }
}
