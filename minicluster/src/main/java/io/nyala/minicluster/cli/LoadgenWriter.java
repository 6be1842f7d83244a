package io.nyala.minicluster.cli;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaSession.FlushMode;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.schema.PartialRow;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One loadgen thread: writes the keys {@code [from, to)} through its own session in the run's
 * flush mode, timing each write the client waits for: each {@code apply} in AUTO_FLUSH_SYNC,
 * each {@code flush} in MANUAL_FLUSH, and in AUTO_FLUSH_BACKGROUND each buffer from the apply
 * that filled it to its flush's answer (which includes waiting behind the flush before it).
 */
final class LoadgenWriter {
  /** What every writer of a run shares: the mode, rows per flush and string length. */
  record Config(FlushMode mode, int batch, int stringLen) {
    /** The bytes of one row's values (8 + 4 + string + 8 + 8), for MB/s. */
    long rowBytes() {
      return 28L + stringLen;
    }
  }

  private final NyalaClient client;
  private final NyalaTable table;
  private final Config config;
  private final Latencies latencies;
  private final LoadgenTally tally;
  private final long nowMicros = System.currentTimeMillis() * 1000;

  LoadgenWriter(NyalaClient client, NyalaTable table, Config config, Latencies latencies,
      LoadgenTally tally) {
    this.client = client;
    this.table = table;
    this.config = config;
    this.latencies = latencies;
    this.tally = tally;
  }

  /** Writes the keys {@code [from, to)} and waits for all of them. */
  void write(long from, long to) {
    try (NyalaSession session = client.newSession()) {
      session.setFlushMode(config.mode());
      session.setMutationBufferSpace(config.batch());
      switch (config.mode()) {
        case AUTO_FLUSH_SYNC -> writeSync(session, from, to);
        case MANUAL_FLUSH -> writeManual(session, from, to);
        default -> writeBackground(session, from, to);
      }
    }
  }

  private void writeSync(NyalaSession session, long from, long to) {
    for (long k = from; k < to; k++) {
      Operation op = row(k);
      long t0 = System.nanoTime();
      OperationResponse r = session.apply(op);
      latencies.record(System.nanoTime() - t0);
      tally.responses(List.of(r), config.rowBytes());
    }
  }

  private void writeManual(NyalaSession session, long from, long to) {
    int pending = 0;
    for (long k = from; k < to; k++) {
      session.apply(row(k));
      if (++pending == config.batch() || k == to - 1) {
        long t0 = System.nanoTime();
        var responses = session.flush();
        latencies.record(System.nanoTime() - t0);
        tally.responses(responses, config.rowBytes());
        pending = 0;
      }
    }
  }

  private void writeBackground(NyalaSession session, long from, long to) {
    List<CompletableFuture<?>> timed = new ArrayList<>();
    int pending = 0;
    for (long k = from; k < to; k++) {
      session.apply(row(k));
      if (++pending == config.batch() || k == to - 1) {
        // The apply that filled the buffer started its flush; this waits for that one.
        long t0 = System.nanoTime();
        long rows = pending;
        if (timed.size() >= 64) {
          timed.removeIf(CompletableFuture::isDone);
        }
        timed.add(session.flushAsync().whenComplete((r, e) -> {
          latencies.record(System.nanoTime() - t0);
          tally.written(rows, config.rowBytes());
        }));
        pending = 0;
      }
    }
    session.flush();
    // Each timing callback has run once its future is done: the counts are complete.
    CompletableFuture.allOf(timed.toArray(new CompletableFuture<?>[0])).join();
    tally.writtenThenFailed(session.getPendingErrors().getRowErrors(), config.rowBytes());
  }

  private Operation row(long k) {
    Operation op = table.newInsert();
    PartialRow r = op.getRow();
    r.addLong("key", k);
    r.addInt("int_val", (int) (k * 31));
    r.addString("str_val", text(k));
    r.addDouble("double_val", k * 0.5);
    if (table.getSchema().hasColumn("ts_val")) {
      r.addTimestampMicros("ts_val", nowMicros + k);
    }
    return op;
  }

  /** {@code row-<k>} cut or padded with 'x' to the configured length. */
  private String text(long k) {
    StringBuilder sb = new StringBuilder(config.stringLen()).append("row-").append(k);
    if (sb.length() > config.stringLen()) {
      sb.setLength(config.stringLen());
    }
    while (sb.length() < config.stringLen()) {
      sb.append('x');
    }
    return sb.toString();
  }
}
