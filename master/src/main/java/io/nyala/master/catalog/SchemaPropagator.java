package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.master.tsmanager.TSAdminClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings tablets to their table's schema after an AlterTable: sends AlterSchema to each tablet's
 * leader, and re-sends after the retry interval until that leader reports the table's schema
 * version in a heartbeat (AlterSchema is idempotent on the tserver). A hibernated tablet has no
 * leader: it is current if its replicas closed at that version, else the AlterSchema goes to a
 * live replica, which wakes the group and names the new leader (followed once, see
 * {@link ReplicaReports#callTarget} and docs/dense-nodes.md). Runs on the leader master:
 * right after the alter, then from the background sweep. State is a concurrent map because
 * sends start on RPC threads and the sweep runs on the master's background thread.
 */
final class SchemaPropagator {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaPropagator.class);

  private final SysCatalog catalog;
  private final ReplicaReports reports;
  private final TSAdminClient admin;
  private final LongSupplier nanoClock;
  private final long retryNanos;
  /** Whether a tserver uuid is registered and heartbeating. */
  private final Predicate<String> live;
  /** Sends so far: picks the replica of a leaderless tablet, so retries go round them. */
  private final AtomicLong sends = new AtomicLong();
  /** tablet id → nanoTime of the last AlterSchema sent. */
  private final Map<String, Long> lastSent = new ConcurrentHashMap<>();

  SchemaPropagator(SysCatalog catalog, ReplicaReports reports, TSAdminClient admin,
      LongSupplier nanoClock, long retryMs, Predicate<String> live) {
    this.live = live;
    this.catalog = catalog;
    this.reports = reports;
    this.admin = admin;
    this.nanoClock = nanoClock;
    this.retryNanos = TimeUnit.MILLISECONDS.toNanos(retryMs);
  }

  /**
   * Whether the tablet's reported leader runs {@code version} or newer; for a hibernated tablet,
   * whether its replicas closed at that version (a group hibernates only once every voter applied
   * everything, so they agree) — no need to wake it.
   */
  boolean isCurrent(SysTabletEntryPB tablet, int version) {
    ReplicaReports.Leader leader = reports.leader(tablet.getTabletId());
    if (leader == null) {
      long closedAt = reports.hibernatedAt(tablet.getTabletId());
      return closedAt >= 0 && reports.replicasOf(tablet.getTabletId()).values().stream()
          .anyMatch(r -> r.state() == TabletStatePB.HIBERNATED && r.term() >= closedAt
              && r.schemaVersion() >= version);
    }
    ReplicaReports.ReplicaState r = reports.replica(tablet.getTabletId(), leader.uuid());
    return r != null && r.schemaVersion() >= version;
  }

  /** Sends to every tablet of {@code table} that is behind, now. */
  void sendAll(SysTableEntryPB table, List<SysTabletEntryPB> tablets) {
    for (SysTabletEntryPB t : tablets) {
      if (!isCurrent(t, table.getSchema().getVersion())) {
        send(table, t);
      }
    }
  }

  /** One pass: re-sends to tablets still behind after the retry interval. */
  void sweep() {
    record Behind(SysTableEntryPB table, SysTabletEntryPB tablet) {}
    List<Behind> behind = catalog.read(s -> s.tables().stream()
        .filter(t -> t.getSchema().getVersion() > 1)
        .flatMap(t -> s.tabletsOf(t.getTableId()).stream()
            .filter(tablet -> !isCurrent(tablet, t.getSchema().getVersion()))
            .map(tablet -> new Behind(t, tablet)))
        .toList());
    lastSent.keySet().retainAll(behind.stream().map(b -> b.tablet().getTabletId()).toList());
    long now = nanoClock.getAsLong();
    for (Behind b : behind) {
      Long last = lastSent.get(b.tablet().getTabletId());
      if (last == null || now - last >= retryNanos) {
        send(b.table(), b.tablet());
      }
    }
  }

  private void send(SysTableEntryPB table, SysTabletEntryPB tablet) {
    String id = tablet.getTabletId();
    String target = reports.callTarget(id, tablet.getReplicasList().stream()
        .map(RaftPeerPB::getUuid).toList(), live, sends.getAndIncrement());
    RaftPeerPB peer = target == null ? null : tablet.getReplicasList().stream()
        .filter(p -> p.getUuid().equals(target)).findFirst().orElse(null);
    if (peer == null) {
      return; // a live group is electing: the sweep tries again once a leader is reported
    }
    lastSent.put(id, nanoClock.getAsLong());
    AlterSchemaRequestPB req = AlterSchemaRequestPB.newBuilder()
        .setTabletId(id)
        .setSchema(table.getSchema())
        .setNewTableName(table.getName())
        .build();
    TSAdminClient.followingLeaderHint(HostPort.fromPb(peer.getRpcAddress()),
            addr -> admin.alterSchema(addr, req))
        .whenComplete((v, t) -> {
          if (t != null) {
            LOG.info("AlterSchema of tablet {} (table '{}', schema version {}) on tablet server "
                + "{} failed (will retry): {}", id, table.getName(),
                table.getSchema().getVersion(), target, t.getMessage());
          }
        });
  }
}
