package io.nyala.itests.nemesis;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.ReadMode;
import io.nyala.client.RowResult;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The set workload: each process INSERTs keys no other INSERT uses, one at a time; at the end
 * every key is read back with a scan (judged by {@link SetChecker}).
 */
final class SetWorkload {
  private final NyalaClient client;
  private final NyalaTable table;
  private final History history;
  private final AtomicLong nextKey = new AtomicLong();

  SetWorkload(NyalaClient client, NyalaTable table, History history) {
    this.client = client;
    this.table = table;
    this.history = history;
  }

  /** Inserts until {@code stop} is set. */
  void run(int process, BooleanSupplier stop) {
    try (NyalaSession session = client.newSession()) {
      while (!stop.getAsBoolean()) {
        long k = nextKey.getAndIncrement();
        Operation op = table.newInsert();
        op.getRow().addLong("key", k).addLong("val", k);
        HistoryOp invoked = history.invoke(process, OpType.INSERT, k, k, null);
        try {
          var r = session.apply(op);
          history.complete(invoked, Outcomes.of(r), k, Outcomes.note(r));
        } catch (RuntimeException e) {
          history.complete(invoked, Outcome.UNKNOWN, k, e.toString());
        }
      }
    }
  }

  /**
   * Every key of the table, by a READ_LATEST scan (a linearizable read point on each tablet's
   * leader: a READ_AT_SNAPSHOT scan reads the leader's applied index, which may still lag what
   * it acknowledged); fails on a key returned twice.
   */
  Set<Long> readAll() {
    Set<Long> keys = new HashSet<>();
    try (NyalaScanner scanner = client.newScannerBuilder(table).readMode(ReadMode.READ_LATEST)
        .setProjectedColumnNames(List.of("key")).build()) {
      for (RowResult r : scanner) {
        if (!keys.add(r.getLong("key"))) {
          throw new AssertionError("set table: key " + r.getLong("key") + " returned twice");
        }
      }
    }
    return keys;
  }
}
