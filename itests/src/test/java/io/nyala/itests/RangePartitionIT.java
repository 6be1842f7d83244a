package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.AlterTableOptions;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Range partitions end to end (docs/architecture.md, "Partitioning"): a table ranged by day on a
 * timestamp-as-int64 key column within two hash buckets; writes across days, a write to a day
 * without a range, scans that open only the matching day's tablets, a day added and written, and
 * a day dropped while a writer writes to another: its rows are gone and its tablets deleted on
 * every tablet server.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RangePartitionIT {
  private static final long DAY = TimeUnit.DAYS.toMicros(1);
  private static final int PER_DAY = 40;
  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("ts", Type.INT64).key(true).build(),
      ColumnSchema.builder("id", Type.INT64).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).nullable(true).build()));

  private static PartialRow day(long d) {
    return SCHEMA.newPartialRow().addLong("ts", d * DAY);
  }

  @Test
  @NyalaCluster(tservers = 3, tserverFlags = "--heartbeat_interval_ms=300",
      lifecycle = NyalaCluster.Lifecycle.PER_METHOD)
  void writesScansAddsAndDropsDays(MiniCluster cluster) throws Exception {
    try (NyalaClient client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(60_000).defaultAdminOperationTimeoutMs(60_000).build();
        TabletProbe probe = new TabletProbe(cluster)) {
      CreateTableOptions o = new CreateTableOptions().setNumReplicas(3)
          .addHashPartitions(List.of("id"), 2).setRangePartitionColumns(List.of("ts"));
      for (long d = 0; d < 3; d++) {
        o.addRangePartition(day(d), day(d + 1));
      }
      NyalaTable table = client.createTable("events", SCHEMA, o);
      assertThat(probe.tabletIds("events")).hasSize(6);
      for (long d = 0; d < 3; d++) {
        insertDay(client, table, d, 0, PER_DAY);
      }
      OperationResponse gap = client.newSession().apply(insert(table, 5, 1));
      assertThat(gap.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.NOT_FOUND);
      assertThat(gap.getRowError().getErrorStatus().message())
          .contains("table 'events': no range partition covers row (ts=" + (5 * DAY + 1000) + ")");

      NyalaTable created = table;
      assertThat(onServers(cluster, 2, () -> scanDay(client, created, 1)))
          .isEqualTo(new Scanned(PER_DAY, 2));
      assertThat(onServers(cluster, 6, () -> scan(client, created)))
          .isEqualTo(new Scanned(3 * PER_DAY, 6));

      table = client.alterTable("events", new AlterTableOptions()
          .addRangePartition(day(3), day(4)));
      assertThat(probe.tabletIds("events")).hasSize(8);
      insertDay(client, table, 3, 0, PER_DAY);
      NyalaTable withDay3 = table;
      assertThat(onServers(cluster, 2, () -> scanDay(client, withDay3, 3)))
          .isEqualTo(new Scanned(PER_DAY, 2));

      Set<String> before = new HashSet<>(probe.tabletIds("events"));
      long written = dropDayZeroWhileWritingDayTwo(client, table);
      Set<String> dropped = new HashSet<>(before);
      dropped.removeAll(probe.tabletIds("events"));
      assertThat(dropped).hasSize(2);
      table = client.openTable("events");
      assertThat(scanDay(client, table, 0)).isEqualTo(new Scanned(0, 0));
      assertThat(scan(client, table).rows()).isEqualTo(3 * PER_DAY + written);
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        for (int i = 0; i < 3; i++) {
          Set<String> hosted = probe.hosted(i);
          if (hosted == null || hosted.stream().anyMatch(dropped::contains)) {
            return false;
          }
        }
        return true;
      });
      OperationResponse gone = client.newSession().apply(insert(table, 0, 1));
      assertThat(gone.getRowError().getErrorStatus().message())
          .contains("no range partition covers row (ts=1000)");
    }
  }

  /** Drops day 0 while another thread writes new ids into day 2; returns how many it wrote. */
  private static long dropDayZeroWhileWritingDayTwo(NyalaClient client, NyalaTable table)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong written = new AtomicLong();
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      try (NyalaSession s = client.newSession()) {
        for (long id = PER_DAY; !stop.get(); id++) {
          OperationResponse r = s.apply(insert(table, 2, id));
          assertThat(r.hasRowError()).as("%s", r).isFalse();
          written.incrementAndGet();
          started.countDown();
        }
      }
    });
    assertThat(started.await(60, TimeUnit.SECONDS)).isTrue();
    client.alterTable("events", new AlterTableOptions().dropRangePartition(day(0), day(1)));
    long atDrop = written.get();
    await().atMost(Duration.ofSeconds(60)).until(() -> written.get() >= atDrop + 10
        || writer.isDone());
    stop.set(true);
    writer.get(60, TimeUnit.SECONDS);
    return written.get();
  }

  private static Operation insert(NyalaTable table, long day, long id) {
    Operation op = table.newInsert();
    op.getRow().addLong("ts", day * DAY + id * 1000).addLong("id", id).addString("v", "x" + id);
    return op;
  }

  private static void insertDay(NyalaClient client, NyalaTable table, long day, long from,
      long to) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      for (long id = from; id < to; id++) {
        s.apply(insert(table, day, id));
      }
      for (OperationResponse r : s.flush()) {
        assertThat(r.hasRowError()).as("%s", r).isFalse();
      }
    }
  }

  /**
   * Runs a scan and checks, on the tablet servers' own counters, that it opened exactly
   * {@code expectedTablets} server-side scanners: the pruning happens before any tablet is
   * called, not by tablets answering empty.
   */
  private static Scanned onServers(MiniCluster cluster, int expectedTablets,
      Supplier<Scanned> scan) {
    long before = scannersOpened(cluster);
    Scanned scanned = scan.get();
    assertThat(scannersOpened(cluster) - before)
        .as("scanners_opened_total summed over the tablet servers").isEqualTo(expectedTablets);
    return scanned;
  }

  private static long scannersOpened(MiniCluster cluster) {
    long sum = 0;
    for (int i = 0; i < 3; i++) {
      double v = ServerMetrics.value(cluster.tabletServer(i), "scanners_opened_total");
      assertThat(v).as("scanners_opened_total of tablet server %d", i).isGreaterThanOrEqualTo(0);
      sum += (long) v;
    }
    return sum;
  }

  /** Rows a scan returned and tablets it opened. */
  record Scanned(long rows, int tablets) {}

  private static Scanned scanDay(NyalaClient client, NyalaTable table, long day) {
    return scan(client, table,
        ColumnPredicate.comparison("ts", ColumnPredicate.Op.GREATER_EQUAL, day * DAY),
        ColumnPredicate.comparison("ts", ColumnPredicate.Op.LESS, (day + 1) * DAY));
  }

  private static Scanned scan(NyalaClient client, NyalaTable table,
      ColumnPredicate... predicates) {
    var b = client.newScannerBuilder(table);
    for (ColumnPredicate p : predicates) {
      b.addPredicate(p);
    }
    long rows = 0;
    try (NyalaScanner s = b.build()) {
      while (s.hasMoreRows()) {
        rows += s.nextRows().getNumRows();
      }
      return new Scanned(rows, s.getAsyncScanner().getTabletsScanned());
    }
  }
}
