package io.nyala.itests.nemesis;

import static org.awaitility.Awaitility.await;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.ReadMode;
import io.nyala.client.RowResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * The bank workload: accounts in one tablet. One process moves money: it reads the balances and
 * UPSERTs both changed accounts in one batch, which is one Raft entry and so applies whole or
 * not at all. Readers scan every account READ_AT_SNAPSHOT; each total must equal the initial
 * total (judged by {@link BankChecker}). The UPSERTs are blind (the client has no conditional
 * write), so a transfer that ended unknown and applied after the next one read would break the
 * total on its own: after an unknown transfer the mover first gets a write of a marker row
 * acknowledged (same tablet, later in its Raft log) before it reads again.
 */
final class BankWorkload {
  /** The marker row's id; not an account, not counted. */
  static final long MARKER = -1;

  private final NyalaClient client;
  private final NyalaTable table;
  private final History history;
  private final int accounts;
  private final long initialBalance;

  BankWorkload(NyalaClient client, NyalaTable table, History history, int accounts,
      long initialBalance) {
    this.client = client;
    this.table = table;
    this.history = history;
    this.accounts = accounts;
    this.initialBalance = initialBalance;
  }

  /** What every snapshot must add up to. */
  long total() {
    return accounts * initialBalance;
  }

  /** Writes the initial balances, before any fault. */
  void init() {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      for (long a = 0; a < accounts; a++) {
        s.apply(upsert(a, initialBalance));
      }
      for (OperationResponse r : s.flush()) {
        if (r.hasRowError()) {
          throw new IllegalStateException("bank: initial balances not written: "
              + r.getRowError());
        }
      }
    }
  }

  /** Moves money between random accounts until {@code stop} is set. */
  void transfer(int process, BooleanSupplier stop, Random random) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      boolean settled = true;
      while (!stop.getAsBoolean()) {
        if (!settled) {
          settled = marker(s);
          continue;
        }
        Map<Long, Long> balances;
        try {
          balances = balances(ReadMode.READ_LATEST);
        } catch (RuntimeException e) {
          continue;
        }
        long from = random.nextInt(accounts);
        long to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
        long have = balances.getOrDefault(from, 0L);
        if (have <= 0 || !balances.containsKey(to)) {
          continue;
        }
        long amount = 1 + random.nextInt((int) Math.min(have, 10));
        settled = move(s, process, from, to, amount, balances);
      }
    }
  }

  /** One transfer; returns false if its outcome is unknown. */
  private boolean move(NyalaSession s, int process, long from, long to, long amount,
      Map<Long, Long> balances) {
    HistoryOp invoked = history.invoke(process, OpType.TRANSFER, from, amount,
        from + "->" + to);
    Outcome outcome;
    String note = null;
    try {
      s.apply(upsert(from, balances.get(from) - amount));
      s.apply(upsert(to, balances.get(to) + amount));
      List<OperationResponse> rs = s.flush();
      outcome = Outcomes.of(rs.get(0));
      Outcome second = Outcomes.of(rs.get(1));
      note = Outcomes.note(rs.get(0));
      if (second != outcome) {
        note = "rows of one batch answered " + outcome + " and " + second;
        outcome = Outcome.UNKNOWN;
      }
    } catch (RuntimeException e) {
      outcome = Outcome.UNKNOWN;
      note = e.toString();
    }
    history.complete(invoked, outcome, amount, note);
    return outcome != Outcome.UNKNOWN;
  }

  private boolean marker(NyalaSession s) {
    try {
      s.apply(upsert(MARKER, 0));
      return !s.flush().get(0).hasRowError();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Sums every account at a snapshot until {@code stop} is set. */
  void read(int process, BooleanSupplier stop) {
    while (!stop.getAsBoolean()) {
      readTotal(process);
    }
  }

  /** One more snapshot total after healing, retried until a scan answers. */
  void finalRead() {
    await("a final snapshot of the bank").atMost(Duration.ofSeconds(60))
        .until(() -> readTotal(99));
  }

  private boolean readTotal(int process) {
    HistoryOp invoked = history.invoke(process, OpType.SCAN_TOTAL, 0, null, null);
    try {
      Map<Long, Long> b = balances(ReadMode.READ_AT_SNAPSHOT);
      long sum = b.values().stream().mapToLong(Long::longValue).sum();
      history.complete(invoked, Outcome.OK, sum, b.size() + " accounts " + b.values());
      return true;
    } catch (RuntimeException e) {
      history.complete(invoked, Outcome.FAIL, null, e.toString());
      return false;
    }
  }

  private Map<Long, Long> balances(ReadMode mode) {
    Map<Long, Long> out = new TreeMap<>();
    try (NyalaScanner scanner = client.newScannerBuilder(table).readMode(mode).build()) {
      for (RowResult r : scanner) {
        if (r.getLong("id") != MARKER) {
          out.put(r.getLong("id"), r.getLong("balance"));
        }
      }
    }
    return out;
  }

  private Operation upsert(long id, long balance) {
    Operation op = table.newUpsert();
    op.getRow().addLong("id", id).addLong("balance", balance);
    return op;
  }
}
