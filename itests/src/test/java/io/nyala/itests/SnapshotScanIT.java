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
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.NyalaCluster;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every page of a tablet's scan reads one MVCC snapshot (docs/architecture.md, "Read path").
 * 10,000 rows over 3 tablets; writer threads keep
 * rewriting every row with an increasing generation, each tablet's share in one write request
 * (one Raft entry, so a tablet moves from one generation to the next atomically). Scans paging
 * 100 rows at a time must see each key exactly once and, within a tablet, one generation: every
 * page reads the snapshot the first page got, however many generations commit meanwhile.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@NyalaCluster(lifecycle = NyalaCluster.Lifecycle.SHARED)
class SnapshotScanIT {
  private static final int ROWS = 10_000;
  private static final int BUCKETS = 3;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void pagedScanSeesOneGenerationPerTablet(NyalaClient client) throws Exception {
    Schema schema = Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("gen", Type.INT64).nullable(false).build()));
    NyalaTable table = client.createTable("snapshots", schema,
        new CreateTableOptions().addHashPartitions(List.of("key"), BUCKETS).setNumReplicas(3));
    AtomicLong generation = new AtomicLong();
    rewriteAll(client, table, generation.incrementAndGet());

    AtomicBoolean stop = new AtomicBoolean();
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      writers.add(CompletableFuture.runAsync(() -> {
        while (!stop.get()) {
          rewriteAll(client, table, generation.incrementAndGet());
        }
      }));
    }
    int scansDuringWrites = 0;
    try {
      for (int scan = 0; scan < 5; scan++) {
        long genBefore = generation.get();
        checkOneScan(client, table, scan);
        if (generation.get() > genBefore) {
          scansDuringWrites++;
        }
      }
    } finally {
      stop.set(true);
      CompletableFuture.allOf(writers.toArray(new CompletableFuture<?>[0]))
          .get(60, TimeUnit.SECONDS);
    }
    assertThat(scansDuringWrites)
        .as("scans during which at least one generation committed (else nothing was tested)")
        .isPositive();
  }

  /** Rewrites every row with {@code gen} in one flush: one request per tablet. */
  private static void rewriteAll(NyalaClient client, NyalaTable table, long gen) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      s.setMutationBufferSpace(ROWS);
      for (long k = 0; k < ROWS; k++) {
        Operation op = table.newUpsert();
        op.getRow().addLong("key", k).addLong("gen", gen);
        s.apply(op);
      }
      for (OperationResponse r : s.flush()) {
        if (r.hasRowError()) {
          throw new AssertionError("generation " + gen + ": " + r.getRowError());
        }
      }
    }
  }

  private static void checkOneScan(NyalaClient client, NyalaTable table, int scan) {
    PartitionSchema ps = table.getPartitionSchema();
    Set<Long> seen = new HashSet<>();
    Map<Integer, Set<Long>> gensByBucket = new HashMap<>();
    NyalaScanner scanner = client.newScannerBuilder(table).batchSizeRows(100).build();
    int pages = 0;
    while (scanner.hasMoreRows()) {
      pages++;
      for (RowResult r : scanner.nextRows()) {
        long key = r.getLong("key");
        assertThat(seen.add(key)).as("scan %d: key %d returned twice", scan, key).isTrue();
        int bucket = ps.bucket(0, new Object[] {key, null});
        gensByBucket.computeIfAbsent(bucket, b -> new HashSet<>()).add(r.getLong("gen"));
      }
    }
    scanner.close();
    assertThat(seen).as("scan %d: distinct keys", scan).hasSize(ROWS);
    assertThat(pages).as("scan %d: pages of at most 100 rows", scan).isGreaterThanOrEqualTo(100);
    assertThat(gensByBucket).as("scan %d: tablets", scan).hasSize(BUCKETS);
    gensByBucket.forEach((bucket, gens) -> assertThat(gens)
        .as("scan %d: generations seen in tablet of bucket %d", scan, bucket).hasSize(1));
  }
}
