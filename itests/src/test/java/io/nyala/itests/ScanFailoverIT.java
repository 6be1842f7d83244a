package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.CreateTableOptions;
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
import io.nyala.minicluster.MiniCluster;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.tablet.BlockTabletStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A scan survives a leader change and an expired scanner (docs/data-safety.md, "Scans"): a scan
 * paging one row at a time reads some rows, the tablet's leadership moves, and for at least 6 s
 * (the old scanner's 2 s TTL runs out) rows are updated, deleted and inserted while every replica
 * flushes and compacts. The scan then resumes on the new leader at its snapshot, after its last
 * key, and returns exactly the rows of the snapshot: none lost, none twice, none newer.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ScanFailoverIT {
  private static final int ROWS = 200;
  private static final int READ_BEFORE_TRANSFER = 20;
  private static final long CHURN_NANOS = TimeUnit.SECONDS.toNanos(6);

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void scanResumedOnNewLeaderAfterScannerExpiryReturnsTheSnapshotRows() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().numMasters(1).numTabletServers(3)
            .tserverFlag("--scanner_ttl_ms=2000").build();
        NyalaClient client = cluster.newClient()) {
      Schema schema = Schema.forTable(List.of(
          ColumnSchema.builder("key", Type.INT64).key(true).build(),
          ColumnSchema.builder("val", Type.STRING).nullable(false).build()));
      NyalaTable table = client.createTable("failover_scan", schema,
          new CreateTableOptions().setNumReplicas(3));
      String tablet = cluster.tablets().tabletIds("failover_scan").get(0);
      write(client, table, 0, ROWS, "snapshot", false);

      NyalaScanner scanner = client.newScannerBuilder(table).batchSizeRows(1).build();
      Map<Long, String> seen = new HashMap<>();
      while (seen.size() < READ_BEFORE_TRANSFER) {
        read(scanner, seen);
      }

      int oldLeader = cluster.tablets().awaitLeader(tablet, Duration.ofSeconds(20)).index();
      int newLeader = (oldLeader + 1) % 3;
      cluster.tablets().transferLeadership(tablet, newLeader, Duration.ofSeconds(20));

      // Churn until 6 s have passed and the old leader has expired the scanner.
      long start = System.nanoTime();
      int round = 0;
      while (System.nanoTime() - start < CHURN_NANOS
          || cluster.inProcessTabletServer(oldLeader).scanners().activeCount() > 0) {
        round++;
        write(client, table, 0, ROWS, "round-" + round, false);
        write(client, table, round * 7 % ROWS, round * 7 % ROWS + 5, null, true);
        write(client, table, ROWS + round * 10, ROWS + round * 10 + 10, "new-" + round, false);
        for (int i = 0; i < 3; i++) {
          BlockTabletStore store = store(cluster, i, tablet);
          store.flush();
          store.compact();
        }
      }

      while (scanner.hasMoreRows()) {
        read(scanner, seen);
      }
      scanner.close();
      assertThat(seen).as("rows of the snapshot").hasSize(ROWS);
      for (long k = 0; k < ROWS; k++) {
        assertThat(seen.get(k)).as("row %d", k).isEqualTo("snapshot");
      }
    }
  }

  /** Reads one page, failing on a key returned twice. */
  private static void read(NyalaScanner scanner, Map<Long, String> seen) {
    for (RowResult r : scanner.nextRows()) {
      long key = r.getLong("key");
      String previous = seen.put(key, r.getString("val"));
      assertThat(previous).as("key %d returned twice", key).isNull();
    }
  }

  /** Upserts keys [from, to) with {@code val}, or deletes them (ignoring missing ones). */
  private static void write(NyalaClient client, NyalaTable table, long from, long to, String val,
      boolean delete) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      for (long k = from; k < to; k++) {
        Operation op = delete ? table.newDeleteIgnore() : table.newUpsert();
        op.getRow().addLong("key", k);
        if (!delete) {
          op.getRow().addString("val", val);
        }
        s.apply(op);
      }
      for (OperationResponse r : s.flush()) {
        assertThat(r.hasRowError()).as("%s", r.getRowError()).isFalse();
      }
    }
  }

  private static BlockTabletStore store(MiniCluster cluster, int index, String tablet) {
    TabletReplica replica = cluster.inProcessTabletServer(index).tabletManager().get(tablet);
    replica.stateMachine(); // SERVICE_UNAVAILABLE until the store is open
    return replica.blockStore();
  }
}
