package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.AlterTableOptions;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanToken;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.ReadMode;
import io.nyala.client.RowResult;
import io.nyala.client.ScanSnapshot;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scan tokens and consistent reads (docs/architecture.md, "Consistent reads"): tokens built at
 * one snapshot, serialized and scanned in parallel by another client, return exactly a full
 * scan at that snapshot while writers keep writing; a token whose projected column an ALTER
 * dropped fails naming the column and the table; a READ_YOUR_WRITES scan sees the client's
 * write after the tablet's leadership moved.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@NyalaCluster(tservers = 3, lifecycle = NyalaCluster.Lifecycle.PER_CLASS)
class ScanTokenIT {
  private static final int ROWS = 600;
  private static final int BUCKETS = 3;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void tokensScannedInParallelByAnotherClientEqualAFullScanAtTheirSnapshot(MiniCluster cluster,
      NyalaClient client) throws Exception {
    NyalaTable table = client.createTable("tokens", kv(), new CreateTableOptions()
        .addHashPartitions(List.of("key"), BUCKETS).setNumReplicas(3));
    upsert(client, table, 0, ROWS, 0);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      for (long gen = 1; !stop.get(); gen++) {
        upsert(client, table, gen * 7 % ROWS, gen * 7 % ROWS + 50, gen);
        upsert(client, table, ROWS + gen, ROWS + gen + 1, gen);
        writes.incrementAndGet();
      }
    });
    ExecutorService pool = Executors.newFixedThreadPool(BUCKETS);
    try (NyalaClient other = cluster.newClient()) {
      for (int round = 0; round < 3; round++) {
        long writesBefore = writes.get();
        List<NyalaScanToken> tokens = client.newScanTokenBuilder(table)
            .setProjectedColumnNames(List.of("key", "val"))
            .readMode(ReadMode.READ_AT_SNAPSHOT).build();
        assertThat(tokens).hasSize(BUCKETS);
        List<CompletableFuture<Map<Long, Long>>> parts = new ArrayList<>();
        for (NyalaScanToken t : tokens) {
          byte[] bytes = t.serialize();
          parts.add(CompletableFuture.supplyAsync(
              () -> scan(NyalaScanToken.deserializeIntoScanner(bytes, other)), pool));
        }
        Map<Long, Long> union = new HashMap<>();
        for (CompletableFuture<Map<Long, Long>> p : parts) {
          for (Map.Entry<Long, Long> e : p.get(60, TimeUnit.SECONDS).entrySet()) {
            assertThat(union.put(e.getKey(), e.getValue())).as("key %d in two tokens", e.getKey())
                .isNull();
          }
        }
        Map<Long, Long> full = scan(client.newScannerBuilder(table)
            .snapshot(ScanSnapshot.of(tokens)).build());
        assertThat(union).as("round %d", round).isEqualTo(full);
        assertThat(union.size()).isGreaterThanOrEqualTo(ROWS);
        // Let at least one write commit between rounds, so the rounds read different data.
        Awaitility.await().atMost(Duration.ofSeconds(30))
            .until(() -> writes.get() > writesBefore);
      }
    } finally {
      stop.set(true);
      writer.get(60, TimeUnit.SECONDS);
      pool.shutdownNow();
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void predicatesLeaveOutTabletsThatCannotMatch(NyalaClient client) {
    NyalaTable table = client.createTable("pruned", kv(), new CreateTableOptions()
        .addHashPartitions(List.of("key"), BUCKETS).setNumReplicas(3));
    upsert(client, table, 0, 30, 5);
    List<NyalaScanToken> tokens = client.newScanTokenBuilder(table)
        .addPredicate(ColumnPredicate.comparison("key", ColumnPredicate.Op.EQUAL, 17L))
        .build();
    assertThat(tokens).hasSize(1);
    assertThat(scan(NyalaScanToken.deserializeIntoScanner(tokens.get(0).serialize(), client)))
        .isEqualTo(Map.of(17L, 5L));
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void tokenAfterAnAlterDroppedAProjectedColumnFailsNamingColumnAndTable(MiniCluster cluster,
      NyalaClient client) {
    Schema schema = Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("val", Type.INT64).nullable(false).build(),
        ColumnSchema.builder("note", Type.STRING).nullable(true).build()));
    NyalaTable table = client.createTable("altered_tokens", schema,
        new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(3));
    upsert(client, table, 0, 10, 1);
    List<NyalaScanToken> tokens = client.newScanTokenBuilder(table)
        .setProjectedColumnNames(List.of("key", "note")).build();
    byte[] bytes = tokens.get(0).serialize();
    try (NyalaClient other = cluster.newClient()) {
      NyalaScanner openedBefore = NyalaScanToken.deserializeIntoScanner(bytes, other);
      client.alterTable("altered_tokens", new AlterTableOptions().dropColumn("note"));

      assertThatThrownBy(() -> NyalaScanToken.deserializeIntoScanner(bytes, other))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
          .hasMessageContaining("'note'").hasMessageContaining("'altered_tokens'")
          .hasMessageContaining("dropped");
      assertThatThrownBy(() -> scan(openedBefore))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
          .hasMessageContaining("'note'").hasMessageContaining("'altered_tokens'");
    }
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void readYourWritesSeesTheWriteAfterLeadershipMoved(MiniCluster cluster, NyalaClient client) {
    NyalaTable table = client.createTable("ryw", kv(), new CreateTableOptions()
        .setNumReplicas(3));
    String tablet = cluster.tablets().tabletIds("ryw").get(0);
    try (NyalaClient other = cluster.newClient()) {
      for (long k = 0; k < 3; k++) {
        upsert(client, table, k, k + 1, k);
        int leader = cluster.tablets().awaitLeader(tablet, Duration.ofSeconds(20)).index();
        cluster.tablets().transferLeadership(tablet, (leader + 1) % 3, Duration.ofSeconds(20));

        Map<Long, Long> rows = scan(client.newScannerBuilder(table)
            .readMode(ReadMode.READ_YOUR_WRITES).build());
        assertThat(rows).as("after write %d", k).containsEntry(k, k).hasSize((int) k + 1);
        // A token carries the writer's position to a client that never wrote.
        NyalaScanToken token = client.newScanTokenBuilder(table)
            .readMode(ReadMode.READ_YOUR_WRITES).build().get(0);
        assertThat(scan(NyalaScanToken.deserializeIntoScanner(token.serialize(), other)))
            .containsEntry(k, k).hasSize((int) k + 1);
      }
    }
  }

  static Schema kv() {
    return Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("val", Type.INT64).nullable(false).build()));
  }

  /** Upserts keys [from, to) with {@code val} in one flush. */
  static void upsert(NyalaClient client, NyalaTable table, long from, long to, long val) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      for (long k = from; k < to; k++) {
        Operation op = table.newUpsert();
        op.getRow().addLong("key", k).addLong("val", val);
        s.apply(op);
      }
      for (OperationResponse r : s.flush()) {
        assertThat(r.hasRowError()).as("%s", r.getRowError()).isFalse();
      }
    }
  }

  /** Every row of a scanner, key to val, failing on a key returned twice. */
  static Map<Long, Long> scan(NyalaScanner scanner) {
    Map<Long, Long> out = new HashMap<>();
    try (scanner) {
      for (RowResult r : scanner) {
        assertThat(out.put(r.getLong("key"), r.getLong("val"))).as("key %d twice",
            r.getLong("key")).isNull();
      }
    }
    return out;
  }
}
