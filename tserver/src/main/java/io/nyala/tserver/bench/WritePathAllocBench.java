package io.nyala.tserver.bench;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.rpc.Channels;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes allocated per applied row operation on the real write path of one RF-1 tablet: a
 * Write RPC over loopback gRPC, validation, the Raft log write, apply, and the answer. Counted
 * with {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes} over every live thread
 * of the JVM (server and the in-process client), and separately for the calling thread, which
 * builds the requests. Threads that exit during the run are not counted.
 */
public final class WritePathAllocBench {
  /** What to run: {@code ops} row operations in requests of {@code opsPerBatch}. */
  public record Options(long ops, int opsPerBatch, long warmupOps, boolean encrypt,
      Path workDir) {
    public Options {
      if (ops < 1 || opsPerBatch < 1 || warmupOps < 0 || ops + warmupOps > Integer.MAX_VALUE) {
        throw NyalaException.invalidArgument("write-path: --ops %d, --ops-per-batch %d and "
            + "--warmup-ops %d out of range", ops, opsPerBatch, warmupOps);
      }
    }
  }

  /** What it measured over the timed ops (after warm-up). */
  public record Result(long ops, long requests, long applied, long allThreadsBytes,
      long callerBytes, long millis) {
    public double bytesPerOp() {
      return (double) allThreadsBytes / ops;
    }

    public double callerBytesPerOp() {
      return (double) callerBytes / ops;
    }

    /** All threads minus the caller: the server plus the client's gRPC threads. */
    public double othersBytesPerOp() {
      return (double) (allThreadsBytes - callerBytes) / ops;
    }
  }

  private WritePathAllocBench() {}

  /**
   * Each copy of a write's row bytes from RPC receipt to the Raft log write, one line each, as
   * read from the code (gRPC 1.83.1, Ratis 3.3.0; that the Write parse aliases is held by
   * {@code AliasingMarshallerTest}). Copies after the log write (apply) are
   * listed by {@link #copiesAfterLogWrite()}.
   */
  public static List<String> payloadCopies(boolean encrypt) {
    List<String> out = new ArrayList<>();
    out.add("gRPC receipt: AliasingMarshaller reads the whole request out of Netty's buffers"
        + " into a fresh byte[] of its own (the Write parse then aliases it: rows are a view of"
        + " that array, not a copy)");
    if (encrypt) {
      out.add("seal: SealedEntries flattens the entry with getContent().toByteArray() before "
          + "AES-GCM (the ciphertext it writes is the encryption, not counted)");
    }
    out.add("Raft log write: Ratis serializes the LogEntryProto straight into the segment's "
        + "write buffer (the one copy DESIGN 9 allows)");
    return out;
  }

  /** Copies of the row bytes after the log write, on apply (TabletStateMachine). */
  public static List<String> copiesAfterLogWrite() {
    return List.of("apply: getLogData().toByteArray() flattens the entry into a new byte[]"
        + " (decrypted into another when sealed); the op's rows are parsed as views of it");
  }

  /** Runs it, counting written ops in {@code done}. */
  public static Result run(Options o, AtomicLong done) {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    if (!mx.isThreadAllocatedMemorySupported()) {
      throw NyalaException.illegalState("this JVM does not count allocated bytes per thread");
    }
    mx.setThreadAllocatedMemoryEnabled(true);
    try (SingleTabletServer ts = SingleTabletServer.start(o.workDir(), o.encrypt(), false);
        Channels channels = new Channels()) {
      TabletServerServiceGrpc.TabletServerServiceBlockingStub stub =
          TabletServerServiceGrpc.newBlockingStub(channels.get(ts.server().rpcAddress()));
      write(stub, ts.tabletId(), 0, o.warmupOps(), o.opsPerBatch(), new AtomicLong());
      long appliedBefore = ts.server().metrics().value("ops_applied_total");
      long self = Thread.currentThread().getId();
      Map<Long, Long> before = snapshot(mx);
      long callerBefore = mx.getThreadAllocatedBytes(self);
      long start = System.nanoTime();
      long requests = write(stub, ts.tabletId(), o.warmupOps(), o.ops(), o.opsPerBatch(), done);
      long millis = (System.nanoTime() - start) / 1_000_000;
      long callerBytes = mx.getThreadAllocatedBytes(self) - callerBefore;
      long all = delta(before, snapshot(mx));
      long applied = ts.server().metrics().value("ops_applied_total") - appliedBefore;
      return new Result(o.ops(), requests, applied, all, callerBytes, millis);
    }
  }

  private static long write(TabletServerServiceGrpc.TabletServerServiceBlockingStub stub,
      String tabletId, long first, long ops, int perBatch, AtomicLong done) {
    long requests = 0;
    for (long i = 0; i < ops; i += perBatch) {
      int n = (int) Math.min(perBatch, ops - i);
      List<RowOperations.Op> rows = new ArrayList<>(n);
      for (int j = 0; j < n; j++) {
        rows.add(new RowOperations.Op(RowOpType.INSERT, SingleTabletServer.SCHEMA.newPartialRow()
            .addInt("id", (int) (first + i + j)).addString("v", "value")));
      }
      WriteResponsePB resp = stub.write(WriteRequestPB.newBuilder().setTabletId(tabletId)
          .setSchema(SingleTabletServer.SCHEMA.toPb())
          .setRowOperations(RowOperations.encode(SingleTabletServer.SCHEMA, rows)).build());
      if (NyalaException.isError(resp.getError()) || resp.getPerRowErrorsCount() > 0) {
        throw NyalaException.illegalState("write-path bench: write of rows from %d failed: %s",
            first + i, resp);
      }
      requests++;
      done.addAndGet(n);
    }
    return requests;
  }

  private static Map<Long, Long> snapshot(com.sun.management.ThreadMXBean mx) {
    long[] ids = mx.getAllThreadIds();
    long[] bytes = mx.getThreadAllocatedBytes(ids);
    Map<Long, Long> m = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        m.put(ids[i], bytes[i]);
      }
    }
    return m;
  }

  /** Growth per thread; a thread born during the run counts whole. */
  private static long delta(Map<Long, Long> before, Map<Long, Long> after) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return sum;
  }
}
