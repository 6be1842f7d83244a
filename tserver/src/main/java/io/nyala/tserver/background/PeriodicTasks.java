package io.nyala.tserver.background;

import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.copy.CopySessions;
import io.nyala.tserver.replica.ReplicaHibernator;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.scan.ScannerManager;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server-wide periodic tasks on the maintenance pool (see {@link ServerPools#maintenance}).
 * A task that fails logs and runs again at its next period.
 */
public final class PeriodicTasks {
  private static final Logger LOG = LoggerFactory.getLogger(PeriodicTasks.class);

  private PeriodicTasks() {}

  /**
   * Expires idle scanners and copy sessions and lets each open store drop the versions no
   * reader needs any more, every half of the shorter TTL (within 50 ms and 5 s).
   */
  public static void scheduleSweep(ScheduledExecutorService pool, long scannerTtlMs,
      long copySessionTtlMs, ScannerManager scanners, CopySessions copySessions,
      TabletManager tablets) {
    long sweepMs = Math.max(50, Math.min(5000, Math.min(scannerTtlMs, copySessionTtlMs) / 2));
    pool.scheduleWithFixedDelay(() -> sweep(scanners, copySessions, tablets), sweepMs, sweepMs,
        TimeUnit.MILLISECONDS);
  }

  /**
   * A hibernation pass over every replica (docs/dense-nodes.md): a quarter of
   * {@code --tablet_hibernate_after_ms}, within 100 ms and once a second.
   */
  public static void scheduleHibernationPasses(ScheduledExecutorService pool,
      ReplicaHibernator hibernator, long hibernateAfterMs) {
    long passMs = Math.max(100, Math.min(1000, hibernateAfterMs / 4));
    pool.scheduleWithFixedDelay(() -> {
      try {
        hibernator.pass();
      } catch (RuntimeException e) {
        LOG.warn("hibernation pass failed", e);
      }
    }, passMs, passMs, TimeUnit.MILLISECONDS);
  }

  private static void sweep(ScannerManager scanners, CopySessions copySessions,
      TabletManager tablets) {
    try {
      scanners.sweep();
      copySessions.sweep();
      for (TabletReplica r : tablets.replicas()) {
        TabletStateMachine sm = r.stateMachineOrNull();
        if (sm != null && sm.store() != null) {
          sm.store().collectGarbage();
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("maintenance pass failed", e);
    }
  }
}
