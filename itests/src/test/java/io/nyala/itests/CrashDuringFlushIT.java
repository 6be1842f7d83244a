package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGKILL while the tablet servers flush continuously (tiny flush thresholds). A writer records
 * every key it attempted and every key the cluster acknowledged; one tablet server is killed
 * after it has flushed a few times and restarted. Then every acknowledged row must be present
 * and correct, no key outside the attempted set may appear, and the killed server's startup GC
 * must have left no orphaned block: a second (graceful) restart deletes none.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CrashDuringFlushIT {
  private static final int VICTIM = 1;
  private static final Pattern FLUSHES =
      Pattern.compile("(?m)^tablet_flushes_total(?:\\{[^}]*\\})? ([0-9.eE+]+)$");
  private static final String LOADED = "loaded metadata of";
  private static final Pattern ORPHANS = Pattern.compile("deleted (\\d+) orphaned blocks");

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void killMidFlushLosesNoAcknowledgedRowAndLeavesNoOrphanedBlocks() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
            .numMasters(1).numTabletServers(3).tserverFlag("--heartbeat_interval_ms=300")
            .tserverFlag("--flush_threshold_mb=1").tserverFlag("--flush_threshold_secs=1")
            .tserverFlag("--maintenance_interval_ms=50").build();
        NyalaClient client = NyalaClient.builder(cluster.masterAddresses())
            .defaultOperationTimeoutMs(30_000).defaultRpcTimeoutMs(3_000).build()) {
      NyalaTable table = client.createTable("crashflush", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));
      Set<Long> attempted = ConcurrentHashMap.newKeySet();
      Set<Long> acked = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong nextKey = new AtomicLong();
      CompletableFuture<Void> writer = CompletableFuture.runAsync(
          () -> write(client, table, nextKey, attempted, acked, stop));
      try {
        await("tablet server " + VICTIM + " flushed a few times").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> flushes(cluster, VICTIM) >= 5 || writer.isDone());
        double flushedAtKill = flushes(cluster, VICTIM);
        cluster.killTabletServer(VICTIM);
        System.out.printf("killed %s after %.0f flushes, %d rows acknowledged%n",
            cluster.tabletServer(VICTIM).name(), flushedAtKill, acked.size());
        int atKill = acked.size();
        await("writes acknowledged with tablet server " + VICTIM + " dead")
            .atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atKill + 500 || writer.isDone());
        cluster.startTabletServer(VICTIM);
        int atRestart = acked.size();
        await("writes acknowledged after the restart").atMost(Duration.ofSeconds(60))
            .until(() -> acked.size() >= atRestart + 500 || writer.isDone());
      } finally {
        stop.set(true);
        writer.get(60, TimeUnit.SECONDS); // rethrows the writer's failure, if any
      }

      Map<Long, String> rows = TestRows.scanAll(client, table);
      Set<Long> missing = new HashSet<>(acked);
      missing.removeAll(rows.keySet());
      assertThat(missing).as("acknowledged rows (%d) missing", acked.size()).isEmpty();
      Set<Long> neverWritten = new HashSet<>(rows.keySet());
      neverWritten.removeAll(attempted);
      assertThat(neverWritten).as("keys never written").isEmpty();
      rows.forEach((k, v) -> assertThat(v).as("row %d", k).isEqualTo(TestRows.expected(k)));

      Path log = cluster.dataRoot().resolve(cluster.tabletServer(VICTIM).name())
          .resolve("server.log");
      assertThat(log).exists();
      String afterCrash = sinceLastStart(log);
      Matcher m = ORPHANS.matcher(afterCrash);
      String cleaned = m.find() ? m.group(1) : "0";
      System.out.printf("first start after the kill deleted %s orphaned blocks%n", cleaned);
      cluster.restartTabletServer(VICTIM);
      assertThat(sinceLastStart(log)).as("second start after the crash (first deleted %s "
          + "orphaned blocks)", cleaned).contains(LOADED).doesNotContainPattern(ORPHANS);
    }
  }

  /** The victim's log from its latest start on (the log is appended to across starts). */
  private static String sinceLastStart(Path log) throws Exception {
    String s = Files.readString(log, StandardCharsets.UTF_8);
    int at = s.lastIndexOf(LOADED);
    assertThat(at).as("a start logged in %s", log).isNotNegative();
    return s.substring(at);
  }

  /** The tablet server's {@code tablet_flushes_total}; 0 if it does not answer. */
  private static double flushes(MiniCluster cluster, int index) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create(cluster.tabletServer(index).webUrl() + "/metrics"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
      Matcher m = FLUSHES.matcher(r.body());
      return m.find() ? Double.parseDouble(m.group(1)) : 0;
    } catch (Exception e) {
      return 0;
    }
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
