package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGKILL of the leader master under load loses nothing and stalls briefly. Three masters and three
 * tablet servers run as processes; a writer thread inserts rows and another keeps asking the
 * master for the table. The leader master is SIGKILLed: a new leader serves within 10 s (the
 * time is printed), writes and lookups keep succeeding, no tablet is re-replicated, and once
 * restarted the old leader rejoins as a follower. Every acknowledged row is readable at the end.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MasterFailoverIT {
  private static final String TABLE = "failover";

  /**
   * Under TLS and authentication (the default): the client's token from the old leader still
   * works after the failover, since the signing keys live in the sys catalog.
   */
  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void aNewLeaderServesAndNothingAcknowledgedIsLost() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
            .numMasters(3).numTabletServers(3).tserverFlag("--heartbeat_interval_ms=300")
            .build();
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(30_000).defaultAdminOperationTimeoutMs(30_000)
            .defaultRpcTimeoutMs(3_000).build()) {
      NyalaTable table = client.createTable(TABLE, TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));
      Map<String, Set<String>> replicasBefore = probe.replicaSets(TABLE);
      Set<Long> acked = ConcurrentHashMap.newKeySet();
      AtomicLong lookups = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      CompletableFuture<Void> writer = CompletableFuture.runAsync(
          () -> KillTserverIT.writeUntilStopped(client, table, new AtomicLong(), acked, stop));
      // Lookups every 20 ms: each one goes to the leader master (GetTableSchema).
      ScheduledExecutorService lookupTimer = Executors.newSingleThreadScheduledExecutor();
      CompletableFuture<Void> looker = new CompletableFuture<>();
      lookupTimer.scheduleWithFixedDelay(() -> {
        try {
          if (!stop.get() && client.openTable(TABLE).getName().equals(TABLE)) {
            lookups.incrementAndGet();
          } else {
            looker.complete(null);
          }
        } catch (RuntimeException e) {
          looker.completeExceptionally(e);
          throw e;
        }
      }, 0, 20, TimeUnit.MILLISECONDS);
      int killed;
      try {
        await("rows before the kill").atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= 1000 || writer.isDone() || looker.isDone());
        killed = cluster.leaderMasterIndex();
        assertThat(killed).isNotNegative();
        cluster.killMaster(killed);
        long t0 = System.nanoTime();
        await("a new leader master serves").atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(50)).until(() -> cluster.leaderMasterIndex() >= 0);
        System.out.printf("MASTER FAILOVER: master-%d SIGKILLed; master-%d serves as leader "
                + "%d ms later%n", killed + 1, cluster.leaderMasterIndex() + 1,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        int atLeader = acked.size();
        long lookupsAtLeader = lookups.get();
        await("writes and lookups after the failover").atMost(Duration.ofSeconds(60))
            .until(() -> (acked.size() >= atLeader + 1000 && lookups.get() > lookupsAtLeader + 10)
                || writer.isDone() || looker.isDone());
      } finally {
        stop.set(true);
        writer.get(60, TimeUnit.SECONDS); // rethrows the writer's failure, if any
        try {
          looker.get(60, TimeUnit.SECONDS); // rethrows a failed lookup, if any
        } finally {
          lookupTimer.shutdownNow();
        }
      }
      cluster.waitForTabletServers();

      cluster.startMaster(killed);
      await("the restarted master follows").atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> {
            List<String> rows = Arrays.asList(
                CliIT.cli("master", "list", "--client-config",
                    cluster.clientConfigFile().toString())[1]
                    .split("\n"));
            assertThat(rows.stream().filter(r -> r.contains(" LEADER "))).hasSize(1);
            assertThat(rows.stream().filter(r -> r.contains(" FOLLOWER "))).hasSize(2)
                .anySatisfy(r -> assertThat(r).startsWith(cluster.master(killed).uuid()));
          });

      assertThat(probe.replicaSets(TABLE)).as("replica sets after the failover")
          .isEqualTo(replicasBefore);
      Map<Long, String> rows = TestRows.scanAll(client, client.openTable(TABLE));
      assertThat(acked).isNotEmpty();
      for (long k : acked) {
        assertThat(rows.get(k)).as("acknowledged row %d", k).isEqualTo(TestRows.expected(k));
      }
    }
  }
}
