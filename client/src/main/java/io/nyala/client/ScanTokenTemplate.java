package io.nyala.client;

import com.google.protobuf.ByteString;
import io.nyala.client.locations.RemoteTablet;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.client.ScanTokenPB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * What every token of one build shares (table, schema version, projection, predicates, limit,
 * read mode), stamped with each tablet's range and read point. Immutable.
 */
final class ScanTokenTemplate {
  private final NyalaTable table;
  private final ScanTokenPB common;

  /**
   * @param table the table, at the schema the builder checked columns against
   * @param projectedColumns names, empty for all columns
   * @param predicates predicates bound to the table's schema
   * @param limit the most rows per token, 0 for no limit
   * @param readMode the read mode
   * @param timeoutMs the time allowed for each page
   */
  ScanTokenTemplate(NyalaTable table, List<String> projectedColumns,
      List<ColumnPredicate> predicates, long limit, ReadMode readMode, long timeoutMs) {
    this.table = table;
    Schema schema = table.getSchema();
    ScanTokenPB.Builder b = ScanTokenPB.newBuilder()
        .setTableId(table.getTableId())
        .setTableName(table.getName())
        .setSchemaVersion(schema.version())
        .addAllProjectedColumns(projectedColumns)
        .setLimit(limit)
        .setReadMode(readMode.toPb())
        .setScanRequestTimeoutMs(timeoutMs);
    for (String c : projectedColumns) {
      b.addProjectedColumnIds(schema.column(c).id());
    }
    for (ColumnPredicate p : predicates) {
      b.addPredicates(p.toPb(schema));
    }
    this.common = b.build();
  }

  /**
   * One token per tablet.
   *
   * @param tablets the tablets, in partition key order
   * @param snapshot with READ_AT_SNAPSHOT, the index of every one of them; else null
   * @return the tokens
   */
  List<NyalaScanToken> tokens(List<RemoteTablet> tablets, ScanSnapshot snapshot) {
    WritePositions written = table.getAsyncClient().writePositions();
    List<NyalaScanToken> out = new ArrayList<>(tablets.size());
    for (RemoteTablet t : tablets) {
      ScanTokenPB.Builder b = common.toBuilder()
          .setTabletId(t.id())
          .setPartitionKeyStart(ByteString.copyFrom(t.partitionKeyStart()))
          .setPartitionKeyEnd(ByteString.copyFrom(t.partitionKeyEnd()));
      if (snapshot != null) {
        Long snap = snapshot.indexes().get(t.id());
        if (snap == null) {
          throw NyalaException.invalidArgument("the snapshot has no index for tablet %s of "
              + "table '%s'", t.id(), table.getName());
        }
        b.setSnapIndex(snap);
      }
      if (common.getReadMode() == ReadMode.READ_YOUR_WRITES.toPb()) {
        b.setMinAppliedIndex(written.of(t.id()));
      }
      out.add(new NyalaScanToken(b.build()));
    }
    return out;
  }
}
