package io.nyala.tserver.fs.log;

import io.nyala.common.env.Env;
import io.nyala.common.security.KeyMaterial;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code nyala bench lbm-startup}: builds a layout like Kudu's replay benchmark (1-byte
 * blocks, per-batch shuffled deletions), waits for hole punching, then times reopens with
 * streaming and in-memory replay alternately in the same process, after one warm-up of each
 * (the JIT, not the page cache, is what a first run would measure).
 */
public final class LbmStartupBench {
  /** Parameters, as the CLI flags. */
  public record Params(int batches, int blocksPerBatch, int dirs, int deletedPercent,
      int reopens, boolean encrypt, long maxBlocks, Path workDir) {}

  /** Figures of one run. */
  public record Result(Params params, long liveBlocks, long containers, long metadataBytes,
      long timedMetadataBytes, long holesPunched, double buildSeconds, long[] streamingMs,
      long[] inMemoryMs) {
    public double streamingMedianMs() {
      return median(streamingMs);
    }

    public double inMemoryMedianMs() {
      return median(inMemoryMs);
    }

    public double speedup() {
      return streamingMedianMs() / inMemoryMedianMs();
    }
  }

  private LbmStartupBench() {}

  /** Runs; {@code progress} counts blocks created then deleted, for a progress line. */
  public static Result run(Params p, AtomicLong progress) throws IOException {
    Env env = p.encrypt() ? Env.encrypted(KeyMaterial.random(256), 256) : Env.plain();
    List<Path> dirs = new ArrayList<>();
    for (int i = 0; i < p.dirs(); i++) {
      dirs.add(p.workDir().resolve("data-" + i));
    }
    LbmOptions opts = LbmOptions.defaults(env, dirs).withMaxBlocks(p.maxBlocks());
    long t0 = System.nanoTime();
    long holes;
    try (LogBlockManager bm = LogBlockManager.open(opts)) {
      build(bm, p, progress);
      bm.awaitHolePunching();
      holes = bm.metrics().holesPunched();
    }
    double buildSeconds = (System.nanoTime() - t0) / 1e9;
    long metaBytes = metadataBytes(env, dirs);
    LbmOptions stream = opts.withInmemThreshold(0);
    LbmOptions inMem = opts.withInmemThreshold(LbmOptions.DEFAULT_INMEM_THRESHOLD);
    Reopen live = reopen(stream);
    reopen(inMem);
    // The warm-up's startup may have compacted full, mostly-dead containers: say what is timed.
    long timedMetaBytes = metadataBytes(env, dirs);
    long[] s = new long[p.reopens()];
    long[] m = new long[p.reopens()];
    for (int i = 0; i < p.reopens(); i++) {
      live = reopen(stream);
      Reopen liveMem = reopen(inMem);
      s[i] = live.ms();
      m[i] = liveMem.ms();
      if (live.blocks() != liveMem.blocks() || live.containers() != liveMem.containers()) {
        throw new IllegalStateException("replay modes disagree: streaming " + live
            + " vs in-memory " + liveMem);
      }
    }
    return new Result(p, live.blocks(), live.containers(), metaBytes, timedMetaBytes, holes,
        buildSeconds, s, m);
  }

  private static void build(LogBlockManager bm, Params p, AtomicLong progress) {
    Random rnd = new Random(42);
    byte[] one = {7};
    for (int b = 0; b < p.batches(); b++) {
      List<BlockId> ids;
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        for (int k = 0; k < p.blocksPerBatch(); k++) {
          BlockManager.WritableBlock w = tx.create();
          w.append(one);
          w.finalizeBlock();
        }
        ids = new ArrayList<>(tx.commit());
      }
      Collections.shuffle(ids, rnd);
      int del = (int) ((long) ids.size() * p.deletedPercent() / 100);
      if (del > 0) {
        BlockManager.DeletionTransaction tx = bm.newDeletion();
        ids.subList(0, del).forEach(tx::add);
        tx.commit();
      }
      progress.addAndGet(p.blocksPerBatch());
    }
  }

  /** One timed reopen: how long it took and the live blocks and containers it found. */
  private record Reopen(long ms, long blocks, long containers) {}

  private static Reopen reopen(LbmOptions o) {
    long t = System.nanoTime();
    try (LogBlockManager bm = LogBlockManager.open(o)) {
      long ms = (System.nanoTime() - t) / 1_000_000;
      return new Reopen(ms, bm.metrics().blocksUnderManagement(), bm.metrics().containers());
    }
  }

  static double median(long[] xs) {
    long[] s = xs.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
  }

  private static long metadataBytes(Env env, List<Path> dirs) throws IOException {
    long total = 0;
    for (Path d : dirs) {
      for (String n : env.listDir(d)) {
        if (n.endsWith(".metadata")) {
          total += Files.size(d.resolve(n));
        }
      }
    }
    return total;
  }
}
