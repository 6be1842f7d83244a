package io.nyala.itests;

import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.OperationResponse;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import io.nyala.minicluster.dense.DenseTables;
import io.nyala.minicluster.dense.ReplicaCensus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGKILL while replicas hibernate and wake (docs/dense-nodes.md). A writer touches one
 * random tablet of a 12-tablet RF 3 table per round and pauses up to a second between rounds,
 * so at any moment some groups are going cold, some are cold and some are
 * waking. One tablet server is SIGKILLed once it holds both awake and cold replicas, writes go
 * on, it is started again; then every replica of every tablet is made leader in turn and
 * scanned: each must hold every acknowledged row.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HibernationKillIT {
  private static final int VICTIM = 2;
  private static final int BUCKETS = 12;
  private static final long IDLE_MS = 400;
  private static final long RETRY_WINDOW_MS = 6_000;

  @Test
  void everyAcknowledgedRowSurvivesOnEveryReplica() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
            .numMasters(1).numTabletServers(3).tserverFlag("--heartbeat_interval_ms=300")
            .tserverFlag("--tablet_hibernate_after_ms=" + IDLE_MS)
            // Written tablets must go cold between bursts; longer than a retry (3 s RPC timeout
            // and a backoff).
            .tserverFlag(Hibernation.retryWindowFlag(RETRY_WINDOW_MS)).build();
        ReplicaCensus census = new ReplicaCensus(cluster);
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(30_000).defaultRpcTimeoutMs(3_000).build()) {
      NyalaTable table = client.createTable("cold_kill", DenseTables.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), BUCKETS).setNumReplicas(3));
      long[][] keys = DenseTables.keysByBucket(table, 5_000, 0);
      Set<Long> acked = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      long seed = System.nanoTime();
      System.out.println("HibernationKillIT: writer seed " + seed);
      CompletableFuture<Void> writer = CompletableFuture.runAsync(
          () -> writeInBursts(client, table, keys, new Random(seed), acked, stop));
      try {
        await("the victim holds awake and cold replicas").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100)).until(() -> mixed(census.states(VICTIM))
                && acked.size() >= 100 || writer.isDone());
        cluster.killTabletServer(VICTIM);
        int atKill = acked.size();
        await("writes acknowledged with the victim dead").atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atKill + 200 || writer.isDone());
        cluster.startTabletServer(VICTIM);
        int atRestart = acked.size();
        await("writes acknowledged after the restart").atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atRestart + 200 || writer.isDone());
      } finally {
        stop.set(true);
        writer.get(60, TimeUnit.SECONDS); // rethrows the writer's failure, if any
      }

      ReplicaScans.assertEveryReplicaHolds(probe, probe.tabletIds("cold_kill"), 3, acked,
          ", writer seed " + seed);
    }
  }

  private static boolean mixed(Map<String, Integer> states) {
    return states != null && states.getOrDefault("RUNNING", 0) > 0
        && states.getOrDefault(Hibernation.HIBERNATED, 0) > 0;
  }

  /**
   * Rounds of 10 rows to one random tablet of 12, then a pause of 0-1000 ms: a tablet
   * is written every 6 s on average, so at any moment some tablets sit past the idle
   * period and retry window and go cold, and the next write to them wakes them. A key is
   * acknowledged when its row has no error.
   */
  private static void writeInBursts(NyalaClient client, NyalaTable table, long[][] keys,
      Random random, Set<Long> acked, AtomicBoolean stop) {
    int[] next = new int[keys.length];
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      while (!stop.get()) {
        int bucket = random.nextInt(keys.length);
        for (int i = 0; i < 10 && next[bucket] < keys[bucket].length; i++) {
          s.apply(DenseTables.insertOf(table, keys[bucket][next[bucket]++]));
        }
        for (OperationResponse r : s.flush()) {
          if (!r.hasRowError()) {
            acked.add((Long) r.getOperation().getRow().get("key"));
          }
        }
        try {
          Thread.sleep(random.nextInt(1000)); // pacing the writes, not waiting for a condition
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
