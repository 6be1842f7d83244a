package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.proto.client.ScanTokenPB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Turns a scan token into a scanner: opens its table by id, checks that the columns it names
 * still exist with the same ids, and scans the token's tablet range at its read point.
 * Stateless.
 */
final class TokenScanners {
  private TokenScanners() {}

  static CompletableFuture<AsyncNyalaScanner> open(ScanTokenPB pb, AsyncNyalaClient client) {
    return client.openTableById(pb.getTableId(), pb.getTableName())
        .handle((table, err) -> {
          if (err != null) {
            NyalaException e = NyalaException.from(err);
            if (e.code() == StatusCode.NOT_FOUND) {
              throw new NyalaException(e.code(), String.format("table '%s' (%s) of a scan token "
                  + "is gone: %s", pb.getTableName(), pb.getTableId(), e.detail()), e);
            }
            throw e;
          }
          return new AsyncNyalaScanner(table, spec(pb, table));
        });
  }

  /**
   * The scan a token describes, against the table's schema now.
   *
   * @throws NyalaException NOT_FOUND naming a projected or filtered column that an ALTER
   *     dropped (or replaced under the same name) since the token was built, and the table
   */
  static ScanSpec spec(ScanTokenPB pb, NyalaTable table) {
    Schema schema = table.getSchema();
    for (int i = 0; i < pb.getProjectedColumnsCount(); i++) {
      checkColumn(pb, table, pb.getProjectedColumns(i), pb.getProjectedColumnIds(i));
    }
    List<ColumnPredicate> preds = new ArrayList<>();
    for (ColumnPredicatePB p : pb.getPredicatesList()) {
      checkColumn(pb, table, p.getColumn(), -1);
      preds.add(ColumnPredicate.fromPb(schema, p));
    }
    List<String> projected = List.copyOf(pb.getProjectedColumnsList());
    String tablet = pb.getTabletId();
    ReadMode mode = ReadMode.fromPb(pb.getReadMode());
    Map<String, Long> snapshot = mode == ReadMode.READ_AT_SNAPSHOT
        ? Map.of(tablet, pb.getSnapIndex()) : Map.of();
    Map<String, Long> minApplied = mode == ReadMode.READ_YOUR_WRITES
        ? Map.of(tablet, pb.getMinAppliedIndex()) : Map.of();
    long timeout = pb.getScanRequestTimeoutMs() > 0 ? pb.getScanRequestTimeoutMs()
        : table.getAsyncClient().getDefaultOperationTimeoutMs();
    return new ScanSpec(projected, schema.project(projected), List.copyOf(preds),
        List.copyOf(pb.getPredicatesList()), new byte[0], new byte[0],
        pb.getLimit() > 0 ? pb.getLimit() : Long.MAX_VALUE, 0, mode, timeout, 0, snapshot,
        minApplied, pb.getPartitionKeyStart().toByteArray(), pb.getPartitionKeyEnd().toByteArray());
  }

  /** A column of the token must still be in the table, with its id if the token has one. */
  private static void checkColumn(ScanTokenPB pb, NyalaTable table, String name, int id) {
    Schema schema = table.getSchema();
    boolean present = schema.hasColumn(name);
    ColumnSchema c = present ? schema.column(name) : null;
    if (!present || (id >= 0 && c.id() != id)) {
      throw NyalaException.notFound("column '%s' of a scan token of table '%s' (%s) is no longer "
          + "in the table: %s by an ALTER since schema version %d (now version %d)", name,
          table.getName(), pb.getTableId(), present ? "replaced" : "dropped",
          pb.getSchemaVersion(), schema.version());
    }
  }
}
