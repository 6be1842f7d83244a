package io.nyala.tserver.bench;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.awaitility.Awaitility.await;

import com.sun.management.OperatingSystemMXBean;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import io.nyala.tserver.TserverOptions;
import io.nyala.tserver.replica.ReplicaState;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What starting a Raft group costs on a dense tablet server (docs/dense-nodes.md, "Where a
 * group start's time goes"): three tablet servers in this JVM create {@code nyala.bench.groups}
 * RF-3 tablets (8 at a time, as the master sends them) and write a row to each, let them all
 * hibernate, then wake each with a write (5 at a time, as the dense-node suite's scans do).
 * Prints wall time, this JVM's CPU time and threads started per tablet for each phase; asserts
 * only that every write succeeded. Run alone for figures:
 * {@code ./mvnw -B -o test -pl tserver -Dtest=GroupStartBenchTest -Dnyala.bench.groups=120}.
 */
@Timeout(300)
class GroupStartBenchTest {
  private static final int GROUPS = Integer.getInteger("nyala.bench.groups", 12);

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  @Test
  void createThenWakeManyGroups() {
    for (int i = 0; i < 3; i++) {
      TserverOptions o = TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort());
      o.tabletHibernateAfterMs = 1_000;
      o.raftProperties.put("raft.server.retrycache.expirytime", "120s");
      servers.add(TserverFixture.start(o));
    }
    List<String> tablets = new ArrayList<>();
    for (int i = 0; i < GROUPS; i++) {
      tablets.add(RaftIds.newId());
    }
    Phase create = Phase.run("create and write", tablets, 8, t -> {
      fx.createTablet(t, servers);
      writeUntilDone(t, 0);
    });
    await().atMost(Duration.ofSeconds(120)).until(() -> tablets.stream().allMatch(t ->
        servers.stream().allMatch(ts -> ts.tabletManager().get(t).state()
            == ReplicaState.HIBERNATED)));
    Phase wake = Phase.run("wake by a write", tablets, 5, t -> writeUntilDone(t, 1));
    for (Phase p : List.of(create, wake)) {
      System.out.printf("GroupStartBench: %d RF-3 tablets, %s: %.2f s wall, %.1f ms CPU and "
          + "%.1f threads started per tablet (3 servers, %d cores)%n", GROUPS, p.name,
          p.wallNanos / 1e9, p.cpuNanos / 1e6 / GROUPS, (double) p.threads / GROUPS,
          Runtime.getRuntime().availableProcessors());
    }
  }

  /** Writes row {@code row} through server 0, following a NOT_LEADER hint, until it succeeds. */
  private void writeUntilDone(String tablet, int row) {
    WriteRequestPB req = inserts(tablet, row, row + 1, RowOpType.INSERT);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
      WriteResponsePB r = fx.write(servers.get(0), req);
      if (r.getError().getCode() == StatusCodePB.NOT_LEADER
          && !r.getError().getLeaderUuid().isEmpty()) {
        TabletServer hinted = servers.stream()
            .filter(s -> s.uuid().equals(r.getError().getLeaderUuid())).findFirst().orElseThrow();
        return !fx.write(hinted, req).hasError();
      }
      return !r.hasError();
    });
  }

  /** One phase's wall time, this JVM's CPU time and threads started. */
  private record Phase(String name, long wallNanos, long cpuNanos, long threads) {
    static Phase run(String name, List<String> tablets, int parallel, Consumer<String> each) {
      OperatingSystemMXBean os =
          (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long cpu0 = os.getProcessCpuTime();
      long threads0 = threads.getTotalStartedThreadCount();
      long t0 = System.nanoTime();
      ExecutorService pool = Executors.newFixedThreadPool(parallel);
      try {
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (String t : tablets) {
          fs.add(CompletableFuture.runAsync(() -> each.accept(t), pool));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
      } finally {
        pool.shutdownNow();
      }
      return new Phase(name, System.nanoTime() - t0, os.getProcessCpuTime() - cpu0,
          threads.getTotalStartedThreadCount() - threads0 - parallel);
    }
  }
}
