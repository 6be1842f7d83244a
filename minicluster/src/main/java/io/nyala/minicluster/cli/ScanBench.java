package io.nyala.minicluster.cli;

import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaTable;
import io.nyala.client.RowResult;
import io.nyala.client.ScannerBuilder;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.ColumnPredicate.Op;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cases of {@code perf scan}, each run on the calling thread: the whole table and a 1% range
 * of its keys (as predicates, so the servers filter), each projecting the key alone and every
 * column. Every value of every row is read through {@link RowResult}'s typed getters, as an
 * application would; MB/s counts those values (8 bytes a number, 4 an int32, a string's length).
 */
final class ScanBench {
  /** One case: a name, the columns projected (empty: all) and whether it takes the 1% range. */
  private record Case(String name, List<String> columns, boolean selective) {}

  /** How the scanner pages: rows and bytes per page (0: the server's default), prefetching. */
  record Paging(int rows, long bytes, boolean prefetch) {}

  /** The figures of one run. */
  private record Run(long rows, long bytes, double secs, double serverCpu, long clientNanos) {}

  private final NyalaTable table;
  /** Null when the servers' CPU cannot be read. */
  private final ServerCpu cpu;
  private final Paging paging;
  /** The smallest and largest key, from the warm-up scan. */
  private long minKey;
  private long maxKey;
  private long tableRows;
  /** Folds every value read, so that no read can be optimised away. */
  private long sink;

  ScanBench(NyalaTable table, ServerCpu cpu, Paging paging) {
    this.table = table;
    this.cpu = cpu;
    this.paging = paging;
  }

  int run(int repeat) {
    warmUp();
    if (tableRows == 0) {
      System.out.printf("scan: table '%s' is empty; nothing to measure%n", table.getName());
      return 1;
    }
    List<String> names = new ArrayList<>();
    table.getSchema().columns().forEach(col -> names.add(col.name()));
    String all = String.join(",", names);
    List<Case> cases = List.of(
        new Case("full table, 1 column (key)", List.of("key"), false),
        new Case("full table, all columns (" + all + ")", List.of(), false),
        new Case("1% key range, 1 column (key)", List.of("key"), true),
        new Case("1% key range, all columns", List.of(), true));
    for (int r = 1; r <= repeat; r++) {
      for (Case c : cases) {
        report(r, repeat, c, runCase(c));
      }
    }
    return 0;
  }

  /** A first full scan of the key alone: warms both sides and finds the key range. */
  private void warmUp() {
    minKey = Long.MAX_VALUE;
    maxKey = Long.MIN_VALUE;
    long n = 0;
    long t0 = System.nanoTime();
    try (NyalaScanner s = builder(List.of("key")).build()) {
      for (RowResult r : s) {
        long k = r.getLong(0);
        minKey = Math.min(minKey, k);
        maxKey = Math.max(maxKey, k);
        n++;
      }
    }
    tableRows = n;
    System.out.printf("scan: warm-up: %d rows of '%s' in %.2f s, keys %d to %d%n", n,
        table.getName(), Progress.secondsSince(t0), n == 0 ? 0 : minKey, n == 0 ? 0 : maxKey);
  }

  private ScannerBuilder builder(List<String> columns) {
    ScannerBuilder b = table.newScannerBuilder();
    if (!columns.isEmpty()) {
      b.setProjectedColumnNames(columns);
    }
    if (paging.bytes() > 0) {
      b.batchSizeBytes(paging.bytes());
    }
    if (paging.rows() > 0) {
      b.batchSizeRows(paging.rows());
    }
    return b.prefetching(paging.prefetch());
  }

  private Run runCase(Case c) {
    ScannerBuilder b = builder(c.columns());
    long total = tableRows;
    if (c.selective()) {
      long span = maxKey - minKey + 1;
      long lo = minKey + span * 99 / 200;
      long hi = lo + Math.max(1, span / 100);
      b.addPredicate(ColumnPredicate.comparison("key", Op.GREATER_EQUAL, lo))
          .addPredicate(ColumnPredicate.comparison("key", Op.LESS, hi));
      total = 0; // not known beforehand
    }
    AtomicLong rows = new AtomicLong();
    long bytes = 0;
    double cpu0 = cpu == null ? 0 : cpu.seconds();
    long client0 = ServerCpu.clientThreadNanos();
    long t0 = System.nanoTime();
    try (Progress p = new Progress(System.out, "scan " + c.name(), total, rows::get);
        NyalaScanner s = b.build()) {
      Schema proj = s.getProjectionSchema();
      for (RowResult r : s) {
        bytes += readAll(proj, r);
        rows.lazySet(rows.get() + 1);
      }
    }
    double secs = Progress.secondsSince(t0);
    long clientNanos = ServerCpu.clientThreadNanos() - client0;
    double serverCpu = cpu == null ? 0 : cpu.seconds() - cpu0;
    return new Run(rows.get(), bytes, secs, serverCpu, clientNanos);
  }

  /** Reads every value of the row; returns the bytes of the values read. */
  private long readAll(Schema proj, RowResult r) {
    long bytes = 0;
    for (int i = 0; i < proj.columnCount(); i++) {
      if (r.isNull(i)) {
        continue;
      }
      switch (proj.column(i).type()) {
        case INT64, UNIXTIME_MICROS -> {
          sink += r.getLong(i);
          bytes += 8;
        }
        case INT32 -> {
          sink += r.getInt(i);
          bytes += 4;
        }
        case DOUBLE -> {
          sink += (long) r.getDouble(i);
          bytes += 8;
        }
        case STRING -> {
          String v = r.getString(i);
          sink += v.length();
          bytes += v.length();
        }
        default -> sink += r.getObject(i).hashCode();
      }
    }
    return bytes;
  }

  private void report(int run, int repeat, Case c, Run r) {
    double s = Math.max(r.secs(), 1e-9);
    long rows = Math.max(1, r.rows());
    List<String> cpuParts = new ArrayList<>();
    if (cpu != null) {
      cpuParts.add(String.format("%s %.2f us/row", cpu.label(), r.serverCpu() * 1e6 / rows));
    }
    cpuParts.add(String.format("client thread %.2f us/row", r.clientNanos() / 1e3 / rows));
    System.out.printf("scan: run %d/%d, %s: %d rows in %.3f s (%.0f rows/s, %.2f MB/s); %s%n",
        run, repeat, c.name(), r.rows(), r.secs(), r.rows() / s, r.bytes() / s / 1e6,
        String.join(", ", cpuParts));
  }
}
