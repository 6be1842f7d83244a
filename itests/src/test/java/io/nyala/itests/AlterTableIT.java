package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.AlterTableOptions;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.RowResult;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * AlterTable end to end: columns added, renamed and dropped on a table
 * with data, across a tablet server restart. Old rows read the added columns' defaults; scans
 * show the new schema; then the table is renamed.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class AlterTableIT {
  private static final int OLD_ROWS = 300;

  @Test
  @NyalaCluster(tservers = 3, tserverFlags = "--heartbeat_interval_ms=300",
      lifecycle = NyalaCluster.Lifecycle.PER_METHOD)
  void addRenameAndDropColumnsOnATableWithData(MiniCluster cluster) throws Exception {
    try (NyalaClient client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(60_000).defaultAdminOperationTimeoutMs(60_000).build()) {
      NyalaTable table = client.createTable("altered", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));
      TestRows.insert(client, table, 0, OLD_ROWS);

      NyalaTable altered = client.alterTable("altered", new AlterTableOptions()
          .addColumn("extra", Type.INT64, 42L)
          .addNullableColumn("note", Type.STRING)
          .renameColumn("num", "number")
          .dropColumn("dbl"));
      assertThat(altered.getSchema().columns()).extracting(ColumnSchema::name)
          .containsExactly("key", "name", "number", "extra", "note");
      insertNew(client, altered);
      checkRows(client, client.openTable("altered"));

      cluster.restartTabletServer(1);
      cluster.waitForTabletServers();
      checkRows(client, client.openTable("altered"));

      NyalaTable renamed = client.alterTable("altered",
          new AlterTableOptions().renameTable("altered2"));
      assertThat(renamed.getName()).isEqualTo("altered2");
      assertThatThrownBy(() -> client.openTable("altered"))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
      checkRows(client, client.openTable("altered2"));
    }
  }

  /**
   * Scanners opened before an ALTER: one finishes with its open-time columns (the renamed one
   * under its old name, the added one absent, the dropped one it does not read no matter); one
   * reading the dropped column fails naming it.
   */
  @Test
  @NyalaCluster(tservers = 1, lifecycle = NyalaCluster.Lifecycle.SHARED)
  void scannersOpenedBeforeAnAlterFinishOrNameTheDroppedColumn(MiniCluster cluster)
      throws Exception {
    try (NyalaClient client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(60_000).defaultAdminOperationTimeoutMs(60_000).build()) {
      NyalaTable table = client.createTable("scanned", TestRows.schema(),
          new CreateTableOptions().setNumReplicas(1));
      TestRows.insert(client, table, 0, 100);
      NyalaScanner keeps = client.newScannerBuilder(table)
          .setProjectedColumnNames(List.of("num", "key")).batchSizeRows(10).build();
      NyalaScanner reads = client.newScannerBuilder(table)
          .setProjectedColumnNames(List.of("key", "dbl")).batchSizeRows(10).build();
      Map<Long, Integer> rows = new TreeMap<>();
      readBatch(keeps, rows);
      assertThat(reads.nextRows().getNumRows()).isEqualTo(10);

      client.alterTable("scanned", new AlterTableOptions().addColumn("extra", Type.INT64, 42L)
          .addNullableColumn("note", Type.STRING).renameColumn("num", "number")
          .dropColumn("dbl"));
      insertNew(client, client.openTable("scanned")); // keys 300..399, after the snapshot
      while (keeps.hasMoreRows()) {
        readBatch(keeps, rows);
      }
      keeps.close();
      assertThat(rows).hasSize(100);
      rows.forEach((k, num) -> assertThat(num).as("row %d", k).isEqualTo(TestRows.num(k)));
      assertThatThrownBy(reads::nextRows)
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE))
          .hasMessageContaining("column 'dbl'").hasMessageContaining("dropped");
    }
  }

  private static void readBatch(NyalaScanner scanner, Map<Long, Integer> rows) {
    for (RowResult r : scanner.nextRows()) {
      assertThat(r.getSchema().columns()).extracting(ColumnSchema::name)
          .containsExactly("num", "key");
      rows.put(r.getLong("key"), r.getInt("num"));
    }
  }

  private static void insertNew(NyalaClient client, NyalaTable table) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      for (long k = OLD_ROWS; k < OLD_ROWS + 100; k++) {
        Operation op = table.newInsert();
        op.getRow().addLong("key", k).addString("name", TestRows.name(k))
            .addInt("number", TestRows.num(k)).addLong("extra", k).addString("note", "n" + k);
        s.apply(op);
      }
      assertNoErrors(s.flush());
    }
  }

  private static void assertNoErrors(List<OperationResponse> responses) {
    for (OperationResponse r : responses) {
      assertThat(r.hasRowError()).as("%s", r.getRowError()).isFalse();
    }
  }

  /** Old rows: defaults in the added columns; new rows: their own values. */
  private static void checkRows(NyalaClient client, NyalaTable table) {
    assertThat(table.getSchema().columns()).extracting(ColumnSchema::name)
        .containsExactly("key", "name", "number", "extra", "note");
    Map<Long, String> rows = new TreeMap<>();
    NyalaScanner scanner = client.newScannerBuilder(table).build();
    while (scanner.hasMoreRows()) {
      for (RowResult r : scanner.nextRows()) {
        assertThat(r.getSchema().columns()).extracting(ColumnSchema::name)
            .containsExactly("key", "name", "number", "extra", "note");
        rows.put(r.getLong("key"), r.getString("name") + "|" + r.getInt("number") + "|"
            + r.getLong("extra") + "|" + (r.isNull("note") ? "NULL" : r.getString("note")));
      }
    }
    scanner.close();
    assertThat(rows).hasSize(OLD_ROWS + 100);
    for (long k = 0; k < OLD_ROWS + 100; k++) {
      String expected = TestRows.name(k) + "|" + TestRows.num(k) + "|"
          + (k < OLD_ROWS ? "42|NULL" : k + "|n" + k);
      assertThat(rows.get(k)).as("row %d", k).isEqualTo(expected);
    }
  }
}
