package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.row.RowOpType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The thread budget of awake replicas (docs/dense-nodes.md): one tablet server with 1
 * and then 41 awake RF-1 tablets (each elected and written to once); every added replica costs
 * at most {@link #PER_REPLICA} threads, and the whole JVM stays under
 * {@code BASE + PER_REPLICA * replicas}. Thread counts, not timings: Awaitility only lets the
 * count settle (election and first-write threads come and go).
 */
@Timeout(120)
class ThreadBudgetTest {
  static final int BASE = 150;
  static final int PER_REPLICA = 6;
  private static final int ADDED = 40;

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  @Test
  void eachAwakeReplicaCostsAtMostSixThreads() {
    ts = TserverFixture.start(TserverFixture.options(dir, TserverFixture.freePort()));
    addAwakeTablets(1);
    ThreadCensus one = settled();
    addAwakeTablets(ADDED);
    AtomicReference<ThreadCensus> many = new AtomicReference<>();
    try {
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
          .untilAsserted(() -> {
            ThreadCensus c = ThreadCensus.take();
            many.set(c);
            assertThat((c.total() - one.total()) / (double) ADDED)
                .as("threads per added replica").isLessThanOrEqualTo(PER_REPLICA);
            assertThat(c.total()).as("threads with %d replicas", ADDED + 1)
                .isLessThanOrEqualTo(BASE + PER_REPLICA * (ADDED + 1));
          });
      // /metrics shows the same count (the whole JVM): at least the 4 threads of each division.
      assertThat(ts.metrics().value("process_threads"))
          .isGreaterThanOrEqualTo(4L * (ADDED + 1));
    } finally {
      System.out.printf("threads with 1 and %d awake RF-1 replicas:%n%s", ADDED + 1,
          many.get() == null ? one.histogram(one) : many.get().histogram(one));
    }
  }

  /**
   * A restart starts every division at once on Ratis' server-wide pool; at Ratis' defaults that
   * pool grows a thread per division (2,000 on a dense node), here it stays at its fixed size.
   * More divisions than that size, so the unbounded pool would show.
   */
  @Test
  void restartStartsDivisionsOnABoundedPool() {
    TserverOptions opts = TserverFixture.options(dir, TserverFixture.freePort());
    ts = TserverFixture.start(opts);
    List<String> ids = addAwakeTablets(RaftSettings.PROXY_THREADS + 8);
    ts.close();
    ts = TserverFixture.start(opts);
    for (String id : ids) {
      TserverFixture.awaitLeader(id, List.of(ts));
    }
    ThreadCensus c = ThreadCensus.take();
    System.out.printf("threads after a restart with %d RF-1 replicas:%n%s", ids.size(),
        c.histogram(c));
    assertThat(c.byName().getOrDefault("*-impl-thread#", 0))
        .as("Ratis server-wide pool threads").isLessThanOrEqualTo(RaftSettings.PROXY_THREADS);
  }

  /** Creates {@code n} RF-1 tablets, waits for their leaders and writes one row to each. */
  private List<String> addAwakeTablets(int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = RaftIds.newId();
      fx.createTablet(id, List.of(ts));
      ids.add(id);
    }
    for (String id : ids) {
      TserverFixture.awaitLeader(id, List.of(ts));
      assertThat(fx.write(ts, inserts(id, 0, 1, RowOpType.INSERT)).hasError()).isFalse();
    }
    return ids;
  }

  /** A census once two in a row, half a second apart, count the same threads. */
  private static ThreadCensus settled() {
    AtomicReference<ThreadCensus> last = new AtomicReference<>();
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).until(() -> {
      ThreadCensus c = ThreadCensus.take();
      ThreadCensus prev = last.getAndSet(c);
      return prev != null && prev.total() == c.total();
    });
    return last.get();
  }
}
