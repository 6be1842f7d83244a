package io.nyala.itests.nemesis;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.ReadMode;
import io.nyala.client.RowResult;
import io.nyala.common.row.ColumnPredicate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The register workload: a few keys, each a read/write register. A WRITE UPSERTs a value no
 * other write uses; a READ is a single-key READ_LATEST scan, which the leader answers at a
 * linearizable read point (docs/architecture.md, "Read path"). The client has no conditional
 * write, so there is no compare-and-set. Judged by {@link RegisterChecker}.
 */
final class RegisterWorkload {
  private final NyalaClient client;
  private final NyalaTable table;
  private final History history;
  private final int keys;
  private final AtomicLong nextValue = new AtomicLong(1);

  RegisterWorkload(NyalaClient client, NyalaTable table, History history, int keys) {
    this.client = client;
    this.table = table;
    this.history = history;
    this.keys = keys;
  }

  /** Reads and writes random keys until {@code stop} is set. */
  void run(int process, BooleanSupplier stop, Random random) {
    try (NyalaSession session = client.newSession()) {
      while (!stop.getAsBoolean()) {
        long k = random.nextInt(keys);
        if (random.nextBoolean()) {
          write(session, process, k);
        } else {
          read(process, k);
        }
      }
    }
  }

  private void write(NyalaSession session, int process, long k) {
    long v = nextValue.getAndIncrement();
    Operation op = table.newUpsert();
    op.getRow().addLong("key", k).addLong("val", v);
    HistoryOp invoked = history.invoke(process, OpType.WRITE, k, v, null);
    try {
      var r = session.apply(op);
      history.complete(invoked, Outcomes.of(r), v, Outcomes.note(r));
    } catch (RuntimeException e) {
      history.complete(invoked, Outcome.UNKNOWN, v, e.toString());
    }
  }

  private void read(int process, long k) {
    HistoryOp invoked = history.invoke(process, OpType.READ, k, null, null);
    List<Long> seen = new ArrayList<>();
    try (NyalaScanner scanner = client.newScannerBuilder(table).readMode(ReadMode.READ_LATEST)
        .addPredicate(ColumnPredicate.comparison("key", ColumnPredicate.Op.EQUAL, k))
        .setProjectedColumnNames(List.of("key", "val")).build()) {
      for (RowResult r : scanner) {
        seen.add(r.getLong("val"));
      }
    } catch (RuntimeException e) {
      // A read changes nothing: one that did not answer constrains nothing either.
      history.complete(invoked, Outcome.FAIL, null, e.toString());
      return;
    }
    if (seen.size() > 1) {
      history.complete(invoked, Outcome.FAIL, null, "key " + k + " returned " + seen.size()
          + " rows: " + seen);
      throw new AssertionError("register table: key " + k + " returned rows " + seen);
    }
    history.complete(invoked, Outcome.OK, seen.isEmpty() ? null : seen.get(0), null);
  }
}
