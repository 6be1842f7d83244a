package io.nyala.minicluster.cli;

import io.nyala.tserver.bench.DeleteTabletBench;
import io.nyala.tserver.bench.WalAppendBench;
import io.nyala.tserver.bench.WritePathAllocBench;
import io.nyala.tserver.replica.DeleteTimings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench wal-append}, {@code bench write-path} and {@code bench delete-tablet}: a real
 * tablet server's paths.
 */
final class TserverBenchCommands {
  private TserverBenchCommands() {}

  private static String json(String step, DeleteTimings.Step s) {
    return String.format("\"%s_ms\":%.2f,\"%s_cpu_ms\":%.2f", step, s.wallNanos() / 1e6, step,
        s.cpuNanos() / 1e6);
  }

  /** {@code nyala bench wal-append}. */
  @Command(name = "wal-append", mixinStandardHelpOptions = true,
      description = {
          "Kudu's mt-log-test through Raft: writers append write batches to one RF-1"
              + " tablet through its local RaftServer, each keeping --inflight requests in flight.",
          "Without --fsync the Ratis log runs with unsafe flush (no fsync)."})
  static final class WalAppendCommand implements Callable<Integer> {
    @Option(names = "--writers", defaultValue = "1") int writers;
    @Option(names = "--batches-per-writer", defaultValue = "100000") long batchesPerWriter;
    @Option(names = "--ops-per-batch", defaultValue = "1") int opsPerBatch;
    @Option(names = "--inflight", defaultValue = "64",
        description = "Requests each writer keeps outstanding (default 64).") int inflight;
    @Option(names = "--fsync", description = "fsync the Raft log (normal flush).") boolean fsync;
    @Option(names = "--encrypt", description = "Encrypt at rest (sealed WAL payloads).")
    boolean encrypt;
    @Option(names = "--verify", description = "Read the Raft log back and check every batch "
        + "is there once, in order per writer.") boolean verify;
    @Option(names = "--work-dir", description = "Where to run (default: a temp dir, removed).")
    Path workDir;
    @Option(names = "--json", description = "Print one JSON object.") boolean json;

    @Override
    public Integer call() throws Exception {
      WalAppendBench.Result r = ScratchRun.run(workDir, "wal-append", "appending batches",
          writers * batchesPerWriter, 2, (dir, done) -> WalAppendBench.run(
              new WalAppendBench.Options(writers, batchesPerWriter, opsPerBatch, inflight, fsync,
                  encrypt, verify, dir), done));
      System.out.println(json ? toJson(r) : toText(r));
      return 0;
    }

    private String toText(WalAppendBench.Result r) {
      StringBuilder sb = new StringBuilder(String.format(
          "Time spent appending %d batches (%d writers): %d ms%n"
              + "batches/s: %.0f%nops/s: %.0f%n"
              + "Raft entries: %d (%.1f batches per entry)%n"
              + "(%d ops/batch, %d in flight per writer, %s, %s; GC %d ms in %d collections)",
          r.batches(), writers, r.millis(), r.batchesPerSecond(), r.opsPerSecond(), r.entries(),
          r.batches() / (double) Math.max(1, r.entries()), opsPerBatch,
          inflight, fsync ? "fsync" : "unsafe flush", encrypt ? "encrypted" : "plain",
          r.gcMillis(), r.gcCount()));
      if (r.verifiedEntries() >= 0) {
        sb.append(String.format("%nverified: %d write batches in the Raft log, in order per "
            + "writer", r.verifiedEntries()));
      }
      return sb.toString();
    }

    private String toJson(WalAppendBench.Result r) {
      return String.format("{\"writers\":%d,\"batches\":%d,\"ops_per_batch\":%d,\"inflight\":%d,"
          + "\"fsync\":%b,\"encrypt\":%b,\"millis\":%d,\"batches_per_s\":%.1f,\"ops_per_s\":%.1f,"
          + "\"raft_entries\":%d,\"verified_entries\":%d,\"gc_ms\":%d,\"gc_count\":%d}",
          writers, r.batches(), opsPerBatch, inflight, fsync, encrypt, r.millis(),
          r.batchesPerSecond(), r.opsPerSecond(), r.entries(), r.verifiedEntries(), r.gcMillis(),
          r.gcCount());
    }
  }

  /** {@code nyala bench write-path}. */
  @Command(name = "write-path", mixinStandardHelpOptions = true,
      description = {
          "Writes --ops row operations through a real tablet server's write path "
              + "(Write RPC over loopback gRPC, Raft log write, apply) to one RF-1 tablet.",
          "With --alloc: bytes allocated per applied op (all JVM threads, and the calling "
              + "thread alone) and each copy of the row bytes from RPC receipt to the log "
              + "write."})
  static final class WritePathCommand implements Callable<Integer> {
    @Option(names = "--alloc", description = "Count allocated bytes and payload copies.")
    boolean alloc;
    @Option(names = "--ops", defaultValue = "100000") long ops;
    @Option(names = "--ops-per-batch", defaultValue = "1") int opsPerBatch;
    @Option(names = "--warmup-ops", defaultValue = "20000",
        description = "Untimed ops first, so the JIT has compiled the path (default 20000).")
    long warmupOps;
    @Option(names = "--encrypt", description = "Encrypt at rest (sealed WAL payloads).")
    boolean encrypt;
    @Option(names = "--work-dir", description = "Where to run (default: a temp dir, removed).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
      WritePathAllocBench.Result r = ScratchRun.run(workDir, "write-path", "writing ops", ops, 2,
          (dir, done) -> WritePathAllocBench.run(new WritePathAllocBench.Options(ops, opsPerBatch,
              warmupOps, encrypt, dir), done));
      System.out.printf("write-path: %d ops in %d requests (%d ops/request, %s), %d applied, "
          + "%d ms, %.0f ops/s%n", r.ops(), r.requests(), opsPerBatch,
          encrypt ? "encrypted" : "plain", r.applied(), r.millis(),
          r.ops() * 1000.0 / Math.max(1, r.millis()));
      if (alloc) {
        System.out.printf("allocated per applied op: %.0f bytes (all threads), %.0f in the "
            + "calling thread (builds requests), %.0f in the others (server and gRPC client)%n",
            r.bytesPerOp(), r.callerBytesPerOp(), r.othersBytesPerOp());
        List<String> copies = WritePathAllocBench.payloadCopies(encrypt);
        System.out.printf("row payload copies from RPC receipt to the Raft log write: %d%n",
            copies.size());
        for (int i = 0; i < copies.size(); i++) {
          System.out.printf("  %d. %s%n", i + 1, copies.get(i));
        }
        System.out.println("after the log write (not counted):");
        WritePathAllocBench.copiesAfterLogWrite().forEach(c -> System.out.println("  - " + c));
      }
      return 0;
    }
  }

  /** {@code nyala bench delete-tablet}. */
  @Command(name = "delete-tablet", mixinStandardHelpOptions = true,
      description = {
          "Writes one row and flushes an RF-1 tablet --flushes times, then times its "
              + "DeleteTablet (remove the Raft group, destroy blocks, delete superblock, metadata "
              + "and WAL), step by step.",
          "Background maintenance is off (every flush stays a layer); a warm-up server in the "
              + "same JVM deletes a 1-layer tablet first."})
  static final class DeleteTabletCommand implements Callable<Integer> {
    @Option(names = "--flushes", defaultValue = "200") int flushes;
    @Option(names = "--encrypt", description = "Encrypt at rest.") boolean encrypt;
    @Option(names = "--work-dir", description = "Where to run (default: a temp dir, removed).")
    Path workDir;
    @Option(names = "--json", description = "Print one JSON object.") boolean json;

    @Override
    public Integer call() throws Exception {
      DeleteTabletBench.Result r = ScratchRun.run(workDir, "delete-tablet", "flushing", flushes,
          2, (dir, done) -> DeleteTabletBench.run(
              new DeleteTabletBench.Options(flushes, encrypt, dir), done));
      String mode = encrypt ? "encrypted" : "plain";
      DeleteTimings t = r.steps();
      System.out.println(json
          ? String.format("{\"flushes\":%d,\"flushed_layers\":%d,\"disk_layers\":%d,"
              + "\"encrypt\":%b,\"millis\":%d,\"blocks_deleted\":%d,\"files_deleted\":%d,"
              + "\"warmup_millis\":%d,%s,%s,%s,%s}", r.flushes(), r.flushedLayers(),
              r.diskLayers(), encrypt, r.millis(), r.blocksDeleted(), r.filesDeleted(),
              r.warmupMillis(), json("mark", t.mark()),
              json("group_removal", t.group()), json("block_deletion", t.blocks()),
              json("files", t.files()))
          : String.format("delete-tablet: %d flushes, %s: deleted in %d ms (%d layers, %d "
              + "blocks, %d files)%n  steps (wall, cpu of the deleting thread): mark DELETING "
              + "%s, group removal %s, block deletion %s, files %s%n  (after a warm-up server "
              + "in this JVM deleted a 1-layer tablet in %d ms)", r.flushes(), mode, r.millis(),
              r.diskLayers(), r.blocksDeleted(), r.filesDeleted(), t.mark(), t.group(),
              t.blocks(), t.files(), r.warmupMillis()));
      return 0;
    }
  }
}
