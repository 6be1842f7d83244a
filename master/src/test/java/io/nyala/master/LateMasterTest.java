package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.fault.NetworkFaults;
import io.nyala.master.catalog.CatalogState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master whose catalog Raft server starts after the other two have elected a leader (as one
 * whose discovery lagged does) is reached by the leader as soon as it listens, and so gets the
 * leader's entries and can help elect when the leader goes right after (docs/testing.md,
 * "Network partitions"). Ratis never counts the vote of a member whose log is empty once the
 * group has committed entries, so while the late master holds nothing a stop of the leader
 * leaves the group leaderless. Before the fix the leader, having failed ten times to reach it,
 * waited 0.5-1.5 s between attempts (5 s after thirty), Ratis' default retry policy.
 *
 * <p>The late master's Raft starts cut off from the others (it drops their appends), so that the
 * test sees each failed attempt: heals right after one and times the next.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LateMasterTest {
  /**
   * Before the fix at least 500 ms; now at most the 75 ms of the retry policy or the next
   * heartbeat, and a round trip.
   */
  private static final long RETRY_BOUND_MS = 400;
  private static final int LATE = 2;

  @TempDir Path dir;

  @Test
  void theLeaderReachesAMasterThatStartedLateAtOnceAndItHelpsElect() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<MasterServer> lateServer = new AtomicReference<>();
    // Heartbeats every quarter second: a leader whose attempt failed tries again at the latest
    // with its next heartbeat (Ratis does not wake it for a failure).
    try (MastersFixture f = MastersFixture.create(dir, 3, "--raft_election_timeout_min_ms=500",
        "--raft_election_timeout_max_ms=1000")) {
      f.beforeRaftStart(LATE, m -> {
        lateServer.set(m);
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      List<CompletableFuture<Void>> starts = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int index = i;
        starts.add(CompletableFuture.runAsync(() -> f.startMaster(index)));
      }
      starts.get(0).get(60, TimeUnit.SECONDS);
      starts.get(1).get(60, TimeUnit.SECONDS);
      int leader = f.awaitLeader();
      assertThat(leader).isNotEqualTo(LATE);

      MasterServer late = await().atMost(Duration.ofSeconds(30)).until(lateServer::get,
          m -> m != null);
      NetworkFaults cut = late.networkFaults();
      cut.block(List.of(f.master(0).uuid(), f.master(1).uuid()));
      long released = System.nanoTime();
      release.countDown();
      starts.get(LATE).get(60, TimeUnit.SECONDS);
      // Past the first ten failures, which Ratis retries at once.
      awaitNanos(() -> cut.droppedCalls() >= 3
          && System.nanoTime() - released > TimeUnit.MILLISECONDS.toNanos(1_500));

      long before = cut.droppedCalls();
      long dropped = awaitNanos(() -> cut.droppedCalls() > before);
      cut.heal();
      long contacted = awaitNanos(() -> late.catalog().catalog().leaderPeer() != null);
      long retryMs = TimeUnit.NANOSECONDS.toMillis(contacted - dropped);
      System.out.printf("LateMasterTest: the leader's next append reached the late master %d ms "
          + "after one was dropped%n", retryMs);
      assertThat(retryMs).as("ms between a dropped append to the late master and the next "
          + "reaching it").isLessThan(RETRY_BOUND_MS);
      awaitNanos(() -> clusterIdOf(late) != null);

      // Holding the entries, it helps the third master elect once the leader is gone.
      f.stopMaster(leader);
      int next = f.awaitLeader();
      assertThat(next).isNotEqualTo(leader);
    } finally {
      release.countDown();
    }
  }

  /** Waits (polling every millisecond, at most 30 s) until {@code condition}; returns when. */
  private static long awaitNanos(BooleanSupplier condition) {
    await("the late master").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1)).until(condition::getAsBoolean);
    return System.nanoTime();
  }

  /** The cluster id in the master's applied catalog (the leader's first entries set it). */
  private static String clusterIdOf(MasterServer m) {
    String id = m.catalog().catalog().read(CatalogState::clusterId);
    return id == null || id.isEmpty() ? null : id;
  }
}
