package io.nyala.tserver.bench;

import io.nyala.common.NyalaException;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.tserver.TserverOptions;
import io.nyala.tserver.consensus.WriteBatcher;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.protocol.ClientId;

/**
 * The analogue of Kudu's {@code mt-log-test}: {@code writers} threads each append
 * {@code batchesPerWriter} write batches of {@code opsPerBatch} inserts to one RF-1 tablet
 * through its replica's {@link WriteBatcher} (in-process, as the Write RPC does after
 * validation, so batches that wait together share a Raft entry), each keeping {@code inflight}
 * requests outstanding. Unlike Kudu's test the entries go through consensus and are applied;
 * without {@code fsync} the Ratis log does not fsync (unsafe flush). Writer {@code w} writes
 * under its own client id with sequence numbers 0, 1, 2, ... so that {@link WalLogVerifier} can
 * check the log's order per writer.
 */
public final class WalAppendBench {
  /** Built once, as a client keeps its table's schema. */
  private static final SchemaPB SCHEMA_PB = SingleTabletServer.SCHEMA.toPb();

  /** What to run. */
  public record Options(int writers, long batchesPerWriter, int opsPerBatch, int inflight,
      boolean fsync, boolean encrypt, boolean verify, Path workDir) {
    public Options {
      if (writers < 1 || batchesPerWriter < 1 || opsPerBatch < 1 || inflight < 1) {
        throw NyalaException.invalidArgument("wal-append: --writers %d, --batches-per-writer %d,"
            + " --ops-per-batch %d and --inflight %d must all be >= 1", writers,
            batchesPerWriter, opsPerBatch, inflight);
      }
      if ((long) writers * batchesPerWriter * opsPerBatch > Integer.MAX_VALUE) {
        throw NyalaException.invalidArgument("wal-append: %d rows do not fit the INT32 key",
            (long) writers * batchesPerWriter * opsPerBatch);
      }
    }
  }

  /**
   * What it measured; {@code entries}: the Raft entries that carried the batches;
   * {@code verifiedEntries} (the batches found in the log) is -1 without verification;
   * {@code gcMillis} and {@code gcCount} are the JVM's collections during the timed run.
   */
  public record Result(long batches, long ops, long millis, long entries, long verifiedEntries,
      long gcMillis, long gcCount) {
    public double batchesPerSecond() {
      return batches * 1000.0 / Math.max(1, millis);
    }

    public double opsPerSecond() {
      return ops * 1000.0 / Math.max(1, millis);
    }
  }

  private final Options opts;
  /** Batches answered so far, for the caller's progress line. */
  private final AtomicLong done;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  /** The writes of each entry, as the Write RPC's {@code writes_per_entry}. */
  private final MetricRegistry.Histogram writesPerEntry = new MetricRegistry("wal-append")
      .histogram("writes_per_entry", "Writes carried by each Raft entry", 1);
  /** What the Write RPC batches with, at the server's defaults. */
  private final WriteBatcher.Settings batching = new WriteBatcher.Settings(
      TserverOptions.DEFAULT_MAX_WRITE_REQUEST_BYTES, 1000,
      new TserverOptions().writeMaxEntriesInFlight, ForkJoinPool.commonPool(), writesPerEntry);

  private WalAppendBench(Options opts, AtomicLong done) {
    this.opts = opts;
    this.done = done;
  }

  /** Runs the benchmark, counting answered batches in {@code done} as it goes. */
  public static Result run(Options opts, AtomicLong done) {
    return new WalAppendBench(opts, done).runOnce();
  }

  private Result runOnce() {
    try (SingleTabletServer ts = SingleTabletServer.start(opts.workDir(), opts.encrypt(),
        opts.fsync())) {
      List<ClientId> clients = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < opts.writers(); w++) {
        ClientId id = ClientId.randomId();
        clients.add(id);
        int writer = w;
        threads.add(new Thread(() -> write(ts, id, writer), "wal-append-writer-" + w));
      }
      long total = opts.writers() * opts.batchesPerWriter();
      long[] gcBefore = GcTotals.now();
      long start = System.nanoTime();
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        join(t);
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      long[] gc = GcTotals.since(gcBefore);
      if (failure.get() != null) {
        throw NyalaException.from(failure.get());
      }
      long verified = opts.verify() ? WalLogVerifier.verify(ts.division(),
          ts.replica().stateMachine().payloads(), clients, opts.batchesPerWriter()) : -1;
      return new Result(total, total * opts.opsPerBatch(), millis, writesPerEntry.count(),
          verified, gc[0], gc[1]);
    }
  }

  private void write(SingleTabletServer ts, ClientId client, int writer) {
    Semaphore slots = new Semaphore(opts.inflight());
    // Answered sequence numbers not yet reported, as the client's replied_seq_nos carry them.
    Queue<Long> answered = new ConcurrentLinkedQueue<>();
    WriteBatcher batcher = ts.replica().writeBatcher(batching);
    WriteBatcher.Group group = WriteBatcher.raftGroup(ts.raftServer(), ts.groupId());
    com.google.protobuf.ByteString clientId = com.google.protobuf.ByteString.copyFrom(
        client.toByteString().toByteArray());
    try {
      for (long seq = 0; seq < opts.batchesPerWriter() && failure.get() == null; seq++) {
        WriteRequestPB req = batch(ts.tabletId(), clientId, writer, seq, drain(answered));
        slots.acquire();
        long seqNo = seq;
        batcher.write(group, req, SingleTabletServer.SCHEMA).whenComplete((reply, err) -> {
          if (err != null) {
            failure.compareAndSet(null, err);
          }
          answered.add(seqNo);
          done.incrementAndGet();
          slots.release();
        });
      }
      slots.acquire(opts.inflight());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure.compareAndSet(null, e);
    }
  }

  private static List<Long> drain(Queue<Long> q) {
    List<Long> out = new ArrayList<>();
    for (Long id = q.poll(); id != null; id = q.poll()) {
      out.add(id);
    }
    return out;
  }

  private static void join(Thread t) {
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("interrupted while waiting for %s", t.getName());
    }
  }

  /** One Write request: {@code opsPerBatch} inserts with keys unique overall. */
  private WriteRequestPB batch(String tabletId, com.google.protobuf.ByteString clientId,
      int writer, long seq, List<Long> replied) {
    int k = opts.opsPerBatch();
    long first = (writer * opts.batchesPerWriter() + seq) * k;
    List<RowOperations.Op> ops = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      ops.add(new RowOperations.Op(RowOpType.INSERT, SingleTabletServer.SCHEMA.newPartialRow()
          .addInt("id", (int) (first + i)).addString("v", "v")));
    }
    return WriteRequestPB.newBuilder().setTabletId(tabletId).setSchema(SCHEMA_PB)
        .setRowOperations(RowOperations.encode(SingleTabletServer.SCHEMA, ops))
        .setClientId(clientId).setSeqNo(seq).addAllRepliedSeqNos(replied).build();
  }
}
