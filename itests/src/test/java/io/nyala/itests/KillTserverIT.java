package io.nyala.itests;

import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGKILL of a tablet server under load loses no acknowledged row. A writer thread inserts rows in
 * batches and counts the keys the cluster acknowledged; one of three tablet servers is SIGKILLed
 * mid-load; writes must keep being acknowledged; the server is started again and catches up; then
 * every replica of every tablet is made leader in turn (TransferLeadership) and scanned directly:
 * each must hold every acknowledged row.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KillTserverIT {
  private static final int VICTIM = 1;

  /** Flags every tablet server gets on top of the suite's own (the variants add theirs). */
  List<String> extraTserverFlags() {
    return List.of();
  }

  /** Whether to wait for every tablet to hibernate before the replicas are checked. */
  boolean coldBeforeVerify() {
    return false;
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void everyAcknowledgedRowSurvivesOnEveryReplica() throws Exception {
    MiniCluster.Builder builder = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
        .numMasters(1).numTabletServers(3).tserverFlag("--heartbeat_interval_ms=300");
    extraTserverFlags().forEach(builder::tserverFlag);
    try (MiniCluster cluster = builder.build();
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(30_000).defaultRpcTimeoutMs(3_000).build()) {
      NyalaTable table = client.createTable("killed", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));
      Set<Long> acked = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong nextKey = new AtomicLong();
      CompletableFuture<Void> writer = CompletableFuture.runAsync(
          () -> writeUntilStopped(client, table, nextKey, acked, stop));
      try {
        await("acknowledged rows before the kill").atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= 2000 || writer.isDone());
        cluster.killTabletServer(VICTIM);
        int atKill = acked.size();
        await("writes acknowledged with tablet server " + VICTIM + " dead")
            .atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atKill + 2000 || writer.isDone());
        cluster.startTabletServer(VICTIM);
        int atRestart = acked.size();
        await("writes acknowledged after the restart").atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atRestart + 1000 || writer.isDone());
      } finally {
        stop.set(true);
        writer.get(60, TimeUnit.SECONDS); // rethrows the writer's failure, if any
      }

      if (coldBeforeVerify()) {
        probe.tabletIds("killed").forEach(t -> Hibernation.awaitCold(probe, t, 3));
      }
      ReplicaScans.assertEveryReplicaHolds(probe, probe.tabletIds("killed"),
          cluster.numTabletServers(), acked, "");
    }
  }

  static void writeUntilStopped(NyalaClient client, NyalaTable table, AtomicLong nextKey,
      Set<Long> acked, AtomicBoolean stop) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      while (!stop.get()) {
        for (int i = 0; i < 100; i++) {
          long k = nextKey.getAndIncrement();
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
