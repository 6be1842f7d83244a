package io.nyala.tserver.bench;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.tserver.replica.DeleteTimings;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * How long DeleteTablet takes for a tablet with many on-disk layers: one RF-1 tablet gets
 * {@code flushes} times one row written and its store flushed, then is deleted through
 * {@link TabletManager#deleteTablet} (the admin path: mark DELETING, remove the
 * Raft group, destroy the blocks and superblock, delete metadata and WAL directory), timed step
 * by step. Background maintenance is off, so no compaction merges the layers: every run deletes
 * the same {@code flushes} layers (as Kudu's benchmark accumulates rowsets). A warm-up server in
 * the same JVM first deletes a one-layer tablet, so the measured delete finds the classes of its
 * path loaded, as in a server that has deleted tablets before (loading them can also trigger a
 * full GC on the metaspace threshold in the middle of the delete).
 */
public final class DeleteTabletBench {
  /** What to run. */
  public record Options(int flushes, boolean encrypt, Path workDir) {
    public Options {
      if (flushes < 1) {
        throw NyalaException.invalidArgument("delete-tablet: --flushes %d must be >= 1",
            flushes);
      }
    }
  }

  /**
   * What it measured: the flushes that wrote a layer, the on-disk layers the tablet had at the
   * delete, the blocks and files the delete removed (files: everything under the server's
   * directory), the delete's wall time and its steps; {@code warmupMillis}: the warm-up's delete,
   * the first of the process.
   */
  public record Result(int flushes, int flushedLayers, int diskLayers, long blocksDeleted,
      long filesDeleted, long millis, DeleteTimings steps, long warmupMillis) {}

  private DeleteTabletBench() {}

  /** Runs it, counting finished flushes in {@code done}. */
  public static Result run(Options opts, AtomicLong done) {
    Result warm = runOnce(opts.workDir().resolve("warmup"), 1, opts.encrypt(), new AtomicLong());
    Result r = runOnce(opts.workDir().resolve("measured"), opts.flushes(), opts.encrypt(), done);
    return new Result(r.flushes(), r.flushedLayers(), r.diskLayers(), r.blocksDeleted(),
        r.filesDeleted(), r.millis(), r.steps(), warm.millis());
  }

  private static Result runOnce(Path dir, int flushes, boolean encrypt, AtomicLong done) {
    try (SingleTabletServer ts = SingleTabletServer.start(dir, encrypt, false, false)) {
      ClientId client = ClientId.randomId();
      TabletReplica replica = ts.server().tabletManager().get(ts.tabletId());
      int layers = 0;
      for (int i = 0; i < flushes; i++) {
        await(RaftCalls.write(ts.raftServer(), ts.groupId(), client, i,
            UnsafeByteOperations.unsafeWrap(oneRow(i))));
        if (replica.stateMachine().store().flush()) {
          layers++;
        }
        done.incrementAndGet();
      }
      int diskLayers = replica.blockStore().diskLayerCount();
      Path serverDir = dir.resolve("ts");
      long blocksBefore = ts.server().blockManager().blockIds().size();
      long filesBefore = countFiles(serverDir);
      long start = System.nanoTime();
      DeleteTimings steps = ts.server().tabletManager().deleteTablet(ts.tabletId(),
          "delete-tablet bench");
      long millis = (System.nanoTime() - start) / 1_000_000;
      long blocksDeleted = blocksBefore - ts.server().blockManager().blockIds().size();
      long filesDeleted = filesBefore - countFiles(serverDir);
      return new Result(flushes, layers, diskLayers, blocksDeleted, filesDeleted, millis, steps,
          -1);
    }
  }

  private static void await(java.util.concurrent.CompletableFuture<?> f) {
    try {
      f.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("interrupted while writing");
    } catch (Exception e) {
      throw NyalaException.from(e.getCause() != null ? e.getCause() : e);
    }
  }

  private static long countFiles(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] oneRow(int key) {
    List<RowOperations.Op> ops = List.of(new RowOperations.Op(RowOpType.INSERT,
        SingleTabletServer.SCHEMA.newPartialRow().addInt("id", key).addString("v", "v")));
    return TabletOpPB.newBuilder().setWrite(WriteOpPB.newBuilder()
        .setSchema(SingleTabletServer.SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(SingleTabletServer.SCHEMA, ops))).build()
        .toByteArray();
  }
}
