package io.nyala.itests;

import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import java.time.Duration;

/**
 * Hibernating replicas in the integration tests (docs/dense-nodes.md): the short idle period
 * the failover suites also run with, and waits on the replica state each tablet server reports.
 */
final class Hibernation {
  /**
   * A replica idle this long hibernates: short enough that a suite's pauses (leader waits,
   * verification) let groups go cold and wake again, as they would at the default of 30 s
   * over hours.
   */
  static final long SHORT_IDLE_MS = 500;
  static final String SHORT_IDLE_FLAG = "--tablet_hibernate_after_ms=" + SHORT_IDLE_MS;
  static final String HIBERNATED = "HIBERNATED";

  /**
   * A tablet server keeps a replica written to within Ratis' retry cache window awake (60 s by
   * default), because the cache that answers a client's retried write from its first outcome
   * does not survive the group's close. Suites that let written tablets go cold within seconds
   * shorten the window with this flag; it must stay longer than the suite's client retries
   * (an RPC timeout plus a backoff), or a late retry could be applied twice.
   */
  static String retryWindowFlag(long ms) {
    return "--raft_property=raft.server.retrycache.expirytime=" + ms + "ms";
  }

  private Hibernation() {}

  /** Waits until every one of the {@code servers} replicas of {@code tablet} is HIBERNATED. */
  static void awaitCold(TabletProbe probe, String tablet, int servers) {
    await("every replica of tablet " + tablet + " hibernated").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100)).until(() -> allCold(probe, tablet, servers));
  }

  /** Whether every one of the {@code servers} replicas of {@code tablet} is HIBERNATED. */
  static boolean allCold(TabletProbe probe, String tablet, int servers) {
    for (int i = 0; i < servers; i++) {
      ListTabletsResponsePB.StatusPB s = probe.status(i, tablet);
      if (s == null || !HIBERNATED.equals(s.getState())) {
        return false;
      }
    }
    return true;
  }
}
