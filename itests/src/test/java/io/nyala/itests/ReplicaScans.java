package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.TransferLeadershipResponsePB;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads one replica's rows for the kill tests: READ_LATEST is served by the leader alone, so a
 * replica is made leader and then scanned; a scan it serves is its own data. Works on cold
 * tablets too: a hibernated group has no leader, and the replica answers the scan from its own
 * flushed store (docs/dense-nodes.md, "Reading a cold tablet without waking it"), or wakes the
 * group when its peers do not confirm it closed; each step is retried because the group may go
 * cold again in between.
 */
final class ReplicaScans {
  private ReplicaScans() {}

  /**
   * Waits until every one of the {@code servers} replicas of {@code tablet} has applied as far as
   * its leader: all report the same applied index, or all are HIBERNATED (a group hibernates only
   * when every voter's log is committed and applied to its end).
   */
  static void awaitCaughtUp(TabletProbe probe, String tablet, int servers) {
    await("replicas of tablet " + tablet + " caught up").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200)).until(() -> {
          Set<Long> applied = new HashSet<>();
          int cold = 0;
          for (int i = 0; i < servers; i++) {
            ListTabletsResponsePB.StatusPB s = probe.status(i, tablet);
            if (s == null) {
              return false;
            }
            applied.add(s.getLastAppliedIndex());
            cold += Hibernation.HIBERNATED.equals(s.getState()) ? 1 : 0;
          }
          return applied.size() == 1 || cold == servers;
        });
  }

  /**
   * Asserts that every one of the {@code servers} replicas of each tablet, made leader in turn
   * and scanned, holds every key of {@code acked}; waits for the replicas to catch up first.
   */
  static void assertEveryReplicaHolds(TabletProbe probe, List<String> tablets, int servers,
      Set<Long> acked, String context) {
    for (String tablet : tablets) {
      awaitCaughtUp(probe, tablet, servers);
    }
    for (int server = 0; server < servers; server++) {
      Set<Long> served = new HashSet<>();
      for (String tablet : tablets) {
        served.addAll(keysServedAsLeader(probe, tablet, server));
      }
      Set<Long> missing = new HashSet<>(acked);
      missing.removeAll(served);
      assertThat(missing).as("acknowledged rows (%d%s) missing on %s as leader", acked.size(),
          context, probe.info(server).name()).isEmpty();
    }
  }

  /**
   * Every key of {@code tablet} as tablet server {@code server} serves them while it leads:
   * transfers the leadership to it (a cold replica answers from its own store) until a scan sent
   * to it succeeds.
   */
  static Set<Long> keysServedAsLeader(TabletProbe probe, String tablet, int server) {
    AtomicReference<Set<Long>> keys = new AtomicReference<>();
    await("server " + server + " leads tablet " + tablet + " and serves a scan")
        .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
          int leader = probe.leaderIndex(tablet);
          if (leader == server || leader < 0) {
            // No leader: the group is cold or electing. A cold replica answers from its own store;
            // otherwise the scan wakes the group and is answered only if this server leads
            // (NOT_LEADER otherwise, and the next poll transfers).
            try {
              keys.set(probe.scanKeys(server, tablet));
              return true;
            } catch (RuntimeException e) {
              return false;
            }
          }
          // A refusal (say, the leader changed meanwhile) is retried by the next poll.
          TransferLeadershipResponsePB r = probe.transferLeadership(leader, tablet, server);
          return !NyalaException.isError(r.getError()) && scanIfLeader(probe, tablet, server, keys);
        });
    return keys.get();
  }

  private static boolean scanIfLeader(TabletProbe probe, String tablet, int server,
      AtomicReference<Set<Long>> keys) {
    if (probe.leaderIndex(tablet) != server) {
      return false;
    }
    try {
      keys.set(probe.scanKeys(server, tablet));
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
