package io.nyala.itests;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.RowResult;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rows the integration tests write: a key and values derived from it, so a scan can check
 * them.
 */
final class TestRows {
  private TestRows() {}

  static Schema schema() {
    return Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("name", Type.STRING).nullable(false).build(),
        ColumnSchema.builder("num", Type.INT32).build(),
        ColumnSchema.builder("dbl", Type.DOUBLE).build()));
  }

  static String name(long k) {
    return "row-" + k;
  }

  static int num(long k) {
    return (int) (k * 7 % 1000);
  }

  static double dbl(long k) {
    return k / 4.0;
  }

  /** Every row of the table, keyed by key, as "name|num|dbl". */
  static Map<Long, String> scanAll(NyalaClient client, NyalaTable table) {
    Map<Long, String> out = new TreeMap<>();
    NyalaScanner scanner = client.newScannerBuilder(table).build();
    while (scanner.hasMoreRows()) {
      for (RowResult r : scanner.nextRows()) {
        String prev = out.put(r.getLong("key"),
            r.getString("name") + "|" + r.getInt("num") + "|" + r.getDouble("dbl"));
        if (prev != null) {
          throw new AssertionError("key " + r.getLong("key") + " returned twice");
        }
      }
    }
    scanner.close();
    return out;
  }

  /** Inserts the rows with keys [from, to) in one flush; fails on any row error. */
  static void insert(NyalaClient client, NyalaTable table, long from, long to) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      for (long k = from; k < to; k++) {
        Operation op = table.newInsert();
        op.getRow().addLong("key", k).addString("name", name(k)).addInt("num", num(k))
            .addDouble("dbl", dbl(k));
        s.apply(op);
      }
      for (OperationResponse r : s.flush()) {
        if (r.hasRowError()) {
          throw new AssertionError("insert failed: " + r.getRowError());
        }
      }
    }
  }

  static String expected(long k) {
    return name(k) + "|" + num(k) + "|" + dbl(k);
  }
}
