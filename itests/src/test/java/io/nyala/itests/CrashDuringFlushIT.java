package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.fault.CrashPoints;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import io.nyala.tserver.tablet.StoreCrashPoints;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tablet server crashes inside a flush while the servers flush continuously (tiny flush
 * thresholds): the victim runs with the crash point {@code flush_before_superblock} armed, so it
 * halts by itself after a flush's blocks are committed and before the superblock lists them.
 * A writer records every key it attempted and every key the cluster acknowledged. The victim is
 * restarted without the fault; then every acknowledged row must be present and correct, no key
 * outside the attempted set may appear, the first start must have deleted the crash's orphaned
 * blocks and a second (graceful) restart must find none.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CrashDuringFlushIT {
  private static final int VICTIM = 1;
  /** One flush in four crashes: usually after some flushes, so superblocks exist already. */
  private static final String CRASH_IN_FLUSH = "--fault_crash_points="
      + StoreCrashPoints.FLUSH_BEFORE_SUPERBLOCK + "=0.25";
  private static final String FLUSHES = "tablet_flushes_total";
  private static final String ORPHANS = "tablet_orphaned_blocks_deleted_at_start";

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void crashMidFlushLosesNoAcknowledgedRowAndLeavesNoOrphanedBlocks() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
            .numMasters(1).numTabletServers(3).tserverFlag("--heartbeat_interval_ms=300")
            .tserverFlag("--flush_threshold_mb=1").tserverFlag("--flush_threshold_secs=1")
            .tserverFlag("--maintenance_interval_ms=50").tserverFlag(VICTIM, CRASH_IN_FLUSH)
            .tserverFlag(VICTIM, "--unlock_unsafe_flags")
            .build();
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(30_000).defaultRpcTimeoutMs(3_000).build()) {
      NyalaTable table = client.createTable("crashflush", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));
      Set<Long> attempted = ConcurrentHashMap.newKeySet();
      Set<Long> acked = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong nextKey = new AtomicLong();
      CompletableFuture<Void> writer = CompletableFuture.runAsync(
          () -> write(client, table, nextKey, attempted, acked, stop));
      double firstOrphans;
      try {
        await("tablet server " + VICTIM + " crashed inside a flush").atMost(Duration.ofSeconds(60))
            .until(() -> cluster.tabletServerExitStatus(VICTIM).isPresent() || writer.isDone());
        assertThat(cluster.tabletServerExitStatus(VICTIM)).as("exit status of %s",
            cluster.tabletServer(VICTIM).name()).hasValue(CrashPoints.EXIT_CODE);
        System.out.printf("%s crashed at %s, %d rows acknowledged%n",
            cluster.tabletServer(VICTIM).name(), StoreCrashPoints.FLUSH_BEFORE_SUPERBLOCK,
            acked.size());
        int atCrash = acked.size();
        await("writes acknowledged with tablet server " + VICTIM + " dead")
            .atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atCrash + 500 || writer.isDone());
        cluster.setTabletServerFlags(VICTIM);
        cluster.startTabletServer(VICTIM);
        firstOrphans = awaitMetric(cluster, ORPHANS);
        int atRestart = acked.size();
        await("writes acknowledged after the restart").atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atRestart + 500 || writer.isDone());
      } finally {
        stop.set(true);
        writer.get(60, TimeUnit.SECONDS); // rethrows the writer's failure, if any
      }
      System.out.printf("first start after the crash deleted %.0f orphaned blocks%n",
          firstOrphans);
      assertThat(firstOrphans).as("orphaned blocks deleted by the first start").isPositive();

      Map<Long, String> rows = TestRows.scanAll(client, table);
      Set<Long> missing = new HashSet<>(acked);
      missing.removeAll(rows.keySet());
      assertThat(missing).as("acknowledged rows (%d) missing", acked.size()).isEmpty();
      Set<Long> neverWritten = new HashSet<>(rows.keySet());
      neverWritten.removeAll(attempted);
      assertThat(neverWritten).as("keys never written").isEmpty();
      rows.forEach((k, v) -> assertThat(v).as("row %d", k).isEqualTo(TestRows.expected(k)));

      cluster.restartTabletServer(VICTIM);
      double secondOrphans = awaitMetric(cluster, ORPHANS);
      System.out.printf("second start deleted %.0f orphaned blocks; %.0f flushes since%n",
          secondOrphans, metric(cluster, FLUSHES));
      assertThat(secondOrphans).as("orphaned blocks deleted by the second start (the first "
          + "deleted %.0f)", firstOrphans).isZero();
    }
  }

  /** A metric of the victim once its web server answers (it starts after RPC). */
  private static double awaitMetric(MiniCluster cluster, String name) {
    AtomicReference<Double> v = new AtomicReference<>(-1.0);
    await(name + " of tablet server " + VICTIM).atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> {
          v.set(metric(cluster, name));
          return v.get() >= 0;
        });
    return v.get();
  }

  /** A gauge or counter of the victim; -1 if it does not answer or has no such series. */
  private static double metric(MiniCluster cluster, String name) {
    return ServerMetrics.value(cluster.tabletServer(VICTIM), name);
  }

  private static void write(NyalaClient client, NyalaTable table, AtomicLong nextKey,
      Set<Long> attempted, Set<Long> acked, AtomicBoolean stop) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      while (!stop.get()) {
        for (int i = 0; i < 200; i++) {
          long k = nextKey.getAndIncrement();
          attempted.add(k);
          Operation op = table.newInsert();
          op.getRow().addLong("key", k).addString("name", TestRows.name(k))
              .addInt("num", TestRows.num(k)).addDouble("dbl", TestRows.dbl(k));
          s.apply(op);
        }
        for (OperationResponse r : s.flush()) {
          if (!r.hasRowError()) {
            acked.add((Long) r.getOperation().getRow().get("key"));
          }
        }
      }
    }
  }
}
