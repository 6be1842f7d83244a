package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.OperationResponse;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import io.nyala.minicluster.dense.DenseTables;
import io.nyala.minicluster.dense.ProcessStats;
import io.nyala.minicluster.dense.ReplicaCensus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dense node (docs/dense-nodes.md): three tablet server processes holding
 * {@code tables x buckets} replicas each (RF 3; 5 x 60 = 300 by default, scaled with
 * {@code -Dnyala.dense.tables} and {@code -Dnyala.dense.buckets} for the benchmark size) with a
 * short hibernation period. Rows go to every tablet, then the cluster is left alone: nearly
 * every replica must go cold, every replica stays reported, each server's thread count drops
 * below the budget of awake replicas, and cold tablets take writes. A full restart then
 * reports every replica at once and every row is read back, from cold replicas without waking
 * their groups.
 *
 * <p>Tagged "solo": it runs alone after the other suites, since its 900 new replicas and
 * another suite's cluster together starve Raft heartbeats on a 2-core box.
 */
@Tag("solo")
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class DenseNodeIT {
  private static final int TABLES = Integer.getInteger("nyala.dense.tables", 5);
  private static final int BUCKETS = Integer.getInteger("nyala.dense.buckets", 60);
  private static final int ROWS_PER_TABLET = 3;
  /**
   * Tables created and written at once: one. A tablet server adds Raft groups one at a time
   * (Ratis' group management, a few fsyncs each), so creating tables side by side is no faster
   * in total, and each table's groups then wait behind the others' before its first write:
   * with five at once a table's first write hit its 30 s deadline in CI (leader elected, not
   * ready), where one by one each table took ~11 s to create and ~1.5 s to write.
   */
  private static final int CREATE_PARALLELISM = 1;
  /** Tables scanned at once after the restart. */
  private static final int SCAN_PARALLELISM = 5;
  private static final int COLD_WRITES = 20;
  /** Replicas per server that may still be awake when "nearly all" are cold. */
  private static final int AWAKE_SLACK = 3;
  /**
   * The thread budget per tablet server (docs/dense-nodes.md): 150 for the server itself (gRPC,
   * Ratis' shared pools, heartbeats, maintenance, JVM) plus 6 per awake replica (the threads
   * Ratis forces per division). Before hibernation a server measured ~2,000 threads at 300
   * replicas (~6.5 per replica), so at 300 mostly-cold replicas this bound is 10x under that.
   */
  private static final long BASE_THREADS = 150;
  private static final long THREADS_PER_AWAKE_REPLICA = 6;
  private static final long WAKE_KEYS = 1_000_000_000L;
  /**
   * Ratis' retry cache window on the servers: a written tablet stays awake this long, and the
   * client's operation timeout is no longer, so that every retry of a write is answered from
   * its first outcome (see Hibernation). 30 s, the client's default: a table's first tablets
   * can still go cold before its last one is created on a loaded 2-core box, so its first
   * write wakes them; at 10 s and at 20 s such a write timed out (NOT_LEADER until the
   * deadline) in a clean-clone CI run.
   */
  private static final long RETRY_WINDOW_MS = 30_000;
  /**
   * The idle period after which a replica hibernates: long enough that a new table's tablets
   * are still awake when the last is created and the table is written. At 1 s most went cold
   * first; at 5 s, on a loaded box where one table's 60 tablets took 11 s to create, the first
   * ones did, and each write woke three groups behind a queue of creates (a wake took 22 s and
   * the write timed out). Shorter than the retry window, so it costs the wait for "all cold"
   * nothing.
   */
  private static final long IDLE_MS = 15_000;
  private final long t0 = System.nanoTime();

  private void phase(String what) {
    System.out.printf("DenseNodeIT: %.1f s: %s%n", (System.nanoTime() - t0) / 1e9, what);
  }

  @Test
  void coldReplicasStayReportedCostNoThreadsAndWakeOnDemand() {
    int perTserver = TABLES * BUCKETS;
    // TLS and authentication on, the minicluster's default, as every other suite runs.
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
            .numMasters(1).numTabletServers(3).readyTimeoutMs(120_000)
            .tserverFlag("--tablet_hibernate_after_ms=" + IDLE_MS)
            .tserverFlag(Hibernation.retryWindowFlag(RETRY_WINDOW_MS))
            .tserverFlag("--heartbeat_interval_ms=500")
            // A clean stop hibernates quiet groups first, as a server on its own does (the
            // minicluster turns that off): the restart then opens no group at all.
            .tserverFlag("--tablet_hibernate_on_stop_ms=10000").build();
        ReplicaCensus census = new ReplicaCensus(cluster);
        TabletProbe probe = new TabletProbe(cluster);
        NyalaClient client = cluster.clientBuilder()
            // Retries of a write must end within the servers' retry cache window.
            .defaultOperationTimeoutMs(RETRY_WINDOW_MS).defaultAdminOperationTimeoutMs(300_000)
            .build()) {
      phase("cluster up");
      Map<String, Long> expected = new ConcurrentHashMap<>();
      // Each table is written as soon as it exists, while its new groups are still awake: a
      // write to a tablet that went cold first would start its three groups once more.
      List<String> names = new ArrayList<>();
      for (int i = 0; i < TABLES; i++) {
        names.add(DenseTables.name("dense", i));
      }
      DenseTables.forEach(names, CREATE_PARALLELISM, name -> {
        DenseTables.createTable(client, name, BUCKETS, 3);
        expected.put(name, DenseTables.writeEveryTablet(client, client.openTable(name),
            ROWS_PER_TABLET));
      });
      phase(TABLES + " tables created and every tablet written");
      await("nearly every replica hibernated").atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1)).until(() -> awake(census) <= AWAKE_SLACK);
      phase("nearly every replica hibernated");
      awaitReported(census, perTserver);
      for (ListTabletServersResponsePB.Entry e : census.masterView().values()) {
        assertThat(e.getNumReplicas()).as("replicas the catalog places on %s",
            e.getTsInfo().getUuid()).isEqualTo(perTserver);
      }
      assertThreadBudget(cluster, census);

      phase("thread budget checked");
      writeToColdTablets(client, probe, expected);
      phase("cold tablets written");

      // A full restart: the stop hibernates the 20 just written (docs/dense-nodes.md, "A clean
      // stop leaves quiet groups cold"), so the servers add no Raft group at start and report
      // every replica at once ("Start"), and every row is read back from the cold replicas'
      // stores, without a wake ("Reading a cold tablet without waking it").
      cluster.stop();
      phase("stopped");
      cluster.start();
      phase("restarted");
      awaitReported(census, perTserver);
      phase("every replica reported after the restart");
      // Tables in parallel, each scan reading its tablets one after the other. The same client:
      // its token outlives the restart (the signing keys are in the sys catalog).
      DenseTables.forEach(List.copyOf(expected.keySet()), SCAN_PARALLELISM, name ->
          await(name + " answers a scan after the restart").atMost(Duration.ofSeconds(90))
              .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
              .until(() -> DenseTables.countRows(client, client.openTable(name))
                  == expected.get(name)));
      phase("every table answers a scan");
      double coldScans = 0;
      for (int i = 0; i < 3; i++) {
        coldScans += census.metric(i, "tablet_cold_scans_total", null, null);
      }
      System.out.printf("DenseNodeIT: %.0f scans answered by cold replicas; awake now: %d at "
          + "most per server%n", coldScans, awake(census));
      assertThat(coldScans).as("scans answered without a wake").isGreaterThanOrEqualTo(
          TABLES * BUCKETS - AWAKE_SLACK);
      assertThat(awake(census)).as("replicas the scans left awake on any server")
          .isLessThanOrEqualTo(AWAKE_SLACK);
    }
  }

  /** Waits until every replica is reported; a timeout says what was still missing. */
  private static void awaitReported(ReplicaCensus census, int perTserver) {
    AtomicReference<String> missing = new AtomicReference<>();
    try {
      await("every replica reported to the master").atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200)).until(() -> {
            missing.set(census.notReported(perTserver, 5_000));
            return missing.get() == null;
          });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("not every replica reported: " + missing.get(), e);
    }
  }

  /** The most awake (not HIBERNATED) replicas on any one server; MAX_VALUE if one is silent. */
  private static int awake(ReplicaCensus census) {
    int most = 0;
    for (int i = 0; i < 3; i++) {
      Map<String, Integer> s = census.states(i);
      if (s == null) {
        return Integer.MAX_VALUE;
      }
      most = Math.max(most, awake(s));
    }
    return most;
  }

  private static int awake(Map<String, Integer> states) {
    return states.values().stream().mapToInt(Integer::intValue).sum()
        - states.getOrDefault(Hibernation.HIBERNATED, 0);
  }

  /**
   * Each server's threads within the budget of its awake replicas once the idle threads of its
   * cached pools (gRPC's executors, Ratis' cached server pool) have ended: those keep a burst's
   * threads up to 60 s after the last hibernation, and one CI run sampled 155 threads on a
   * server with 0 awake replicas right after the census (121-129 in every other run). The
   * budget is about replicas at rest, so the count must come under it within 90 s and the
   * census must still say the same replicas are awake.
   */
  private static void assertThreadBudget(MiniCluster cluster, ReplicaCensus census) {
    for (int i = 0; i < 3; i++) {
      final int server = i;
      AtomicReference<String> last = new AtomicReference<>();
      try {
        await("threads of " + cluster.tabletServer(i).name() + " within the budget")
            .atMost(Duration.ofSeconds(90)).pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofSeconds(2)).until(() -> {
              Map<String, Integer> s = census.states(server);
              long awake = awake(s);
              long threads = ProcessStats.of(cluster.tabletServerPid(server)).threads();
              last.set(String.format("%s holds %s, %d threads, tablet_replicas metric: running %d "
                  + "hibernated %d, budget %d", cluster.tabletServer(server).name(), s, threads,
                  census.replicasIn(server, "running"), census.replicasIn(server, "hibernated"),
                  BASE_THREADS + THREADS_PER_AWAKE_REPLICA * awake));
              return threads <= BASE_THREADS + THREADS_PER_AWAKE_REPLICA * awake;
            });
      } catch (ConditionTimeoutException e) {
        throw new AssertionError("over the thread budget for 90 s: " + last.get(), e);
      }
      System.out.println("DenseNodeIT: " + last.get());
    }
  }

  /**
   * Writes one row to each of {@link #COLD_WRITES} tablets that are HIBERNATED on every replica,
   * chosen with a printed seed; each write must succeed, and then the tablet, awake, must
   * answer a scan with the rows it held before its hibernation and the new one.
   */
  private static void writeToColdTablets(NyalaClient client, TabletProbe probe,
      Map<String, Long> expected) {
    List<ListTabletsResponsePB.StatusPB> cold = new ArrayList<>();
    Map<String, String> stateElsewhere = new LinkedHashMap<>();
    for (int i = 1; i < 3; i++) {
      probe.tserver(i, 10_000).listTablets(ListTabletsRequestPB.getDefaultInstance())
          .getTabletsList().forEach(s -> stateElsewhere.merge(s.getTabletId(), s.getState(),
              (a, b) -> a.equals(b) ? a : "MIXED"));
    }
    for (ListTabletsResponsePB.StatusPB s : probe.tserver(0, 10_000)
        .listTablets(ListTabletsRequestPB.getDefaultInstance()).getTabletsList()) {
      if (Hibernation.HIBERNATED.equals(s.getState())
          && Hibernation.HIBERNATED.equals(stateElsewhere.get(s.getTabletId()))) {
        cold.add(s);
      }
    }
    long seed = System.nanoTime();
    System.out.printf("DenseNodeIT: %d cold tablets, choosing %d with seed %d%n", cold.size(),
        COLD_WRITES, seed);
    assertThat(cold).hasSizeGreaterThanOrEqualTo(COLD_WRITES);
    Collections.shuffle(cold, new Random(seed));
    for (ListTabletsResponsePB.StatusPB s : cold.subList(0, COLD_WRITES)) {
      NyalaTable table = client.openTable(s.getTableName());
      int bucket = s.getPartition().getHashBuckets(0);
      long key = DenseTables.keysByBucket(table, 1, WAKE_KEYS)[bucket][0];
      try (NyalaSession session = client.newSession()) {
        OperationResponse r = session.apply(DenseTables.insertOf(table, key));
        assertThat(r.hasRowError()).as("first write to cold tablet %s (seed %d): %s",
            s.getTabletId(), seed, r.getRowError()).isFalse();
      }
      expected.merge(s.getTableName(), 1L, Long::sum);
      List<Long> keys = new ArrayList<>();
      for (long k : DenseTables.keysByBucket(table, ROWS_PER_TABLET, 0)[bucket]) {
        keys.add(k);
      }
      keys.add(key);
      assertThat(DenseTables.countRows(client, table, ColumnPredicate.inList("key", keys)))
          .as("rows of tablet %s after its wake (seed %d)", s.getTabletId(), seed)
          .isEqualTo(ROWS_PER_TABLET + 1);
    }
  }
}
