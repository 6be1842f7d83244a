package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.master.tsmanager.TSAdminClient;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings CREATING tablets to life: sends CreateTablet to each replica, re-sends to replicas
 * that have not reported the tablet after the retry interval (the tserver's CreateTablet is
 * idempotent), and persists RUNNING once a leader is reported. Runs on the leader only; all
 * state is in concurrent maps because reports arrive on RPC threads while the sweep runs on
 * the master's background thread.
 *
 * <p>Each tserver gets at most {@link #MAX_IN_FLIGHT_PER_TSERVER} CreateTablet calls at once,
 * the rest wait here, and a replica never has two calls out: a tserver creates replicas one
 * after the other, so five tables of 60 tablets sent at once queued there past the calls'
 * deadline, and the re-sends of the timed-out calls queued behind them again.
 */
final class TabletCreator {
  private static final Logger LOG = LoggerFactory.getLogger(TabletCreator.class);

  private record Pending(SysTableEntryPB table, SysTabletEntryPB tablet) {}

  private final SysCatalog catalog;
  private final ReplicaReports reports;
  private final TSAdminClient admin;
  private final LongSupplier nanoClock;
  private final long retryNanos;
  /** tablet id → replica uuid → nanoTime of the last CreateTablet sent. */
  private final Map<String, Map<String, Long>> lastSent = new ConcurrentHashMap<>();
  /** Tablets whose RUNNING update is being written, so reports do not write it twice. */
  private final Set<String> runningInFlight = ConcurrentHashMap.newKeySet();
  /** CreateTablet calls one tserver is sent at once. */
  static final int MAX_IN_FLIGHT_PER_TSERVER = 8;
  /** tserver uuid → its calls in flight and waiting. */
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  /** One tserver's CreateTablet calls: guarded by its own monitor. */
  private static final class Window {
    int inFlight;
    /** Tablet ids with a call out or waiting: one per replica at a time. */
    final Set<String> busy = new HashSet<>();
    final Deque<Call> waiting = new ArrayDeque<>();
  }

  private record Call(SysTableEntryPB table, SysTabletEntryPB tablet, RaftPeerPB replica) {}

  TabletCreator(SysCatalog catalog, ReplicaReports reports, TSAdminClient admin,
      LongSupplier nanoClock, long retryMs) {
    this.catalog = catalog;
    this.reports = reports;
    this.admin = admin;
    this.nanoClock = nanoClock;
    this.retryNanos = TimeUnit.MILLISECONDS.toNanos(retryMs);
  }

  /** First sends for a new table's tablets. */
  void sendAll(SysTableEntryPB table, List<SysTabletEntryPB> tablets) {
    for (SysTabletEntryPB t : tablets) {
      for (RaftPeerPB replica : t.getReplicasList()) {
        send(table, t, replica);
      }
    }
  }

  /**
   * One pass over the CREATING tablets: promote, or re-send to silent replicas. A tablet that
   * went RUNNING with a replica still silent (two replicas elected while the third's CreateTablet
   * was refused or timed out, as under a burst of creates) keeps being re-sent to it until it
   * reports: nothing else would ever create that replica, and the group would run one short.
   */
  void sweep() {
    List<Pending> pending = catalog.read(s -> s.tablets().stream()
        .filter(t -> t.getState() == SysTabletStatePB.SYS_TABLET_CREATING
            || (t.getState() == SysTabletStatePB.SYS_TABLET_RUNNING
                && lastSent.containsKey(t.getTabletId())))
        .map(t -> new Pending(s.tableById(t.getTableId()), t))
        .filter(p -> p.table() != null)
        .toList());
    Set<String> ids = ConcurrentHashMap.newKeySet();
    pending.forEach(p -> ids.add(p.tablet().getTabletId()));
    lastSent.keySet().retainAll(ids);
    long now = nanoClock.getAsLong();
    for (Pending p : pending) {
      String id = p.tablet().getTabletId();
      boolean creating = p.tablet().getState() == SysTabletStatePB.SYS_TABLET_CREATING;
      if (creating && promoteIfUp(p.tablet())) {
        continue;
      }
      boolean allReported = true;
      Map<String, Long> sentTo = lastSent.getOrDefault(id, Map.of());
      for (RaftPeerPB replica : p.tablet().getReplicasList()) {
        if (reports.hasReported(id, replica.getUuid())) {
          continue;
        }
        if (!creating && !sentTo.containsKey(replica.getUuid())) {
          // Not a founding replica: re-replication added it (a joiner, created by tablet
          // copy). A plain CreateTablet would make it a founding member with an empty log.
          continue;
        }
        allReported = false;
        Long last = sentTo.get(replica.getUuid());
        if (last == null || now - last >= retryNanos) {
          send(p.table(), p.tablet(), replica);
        }
      }
      if (allReported && !creating) {
        lastSent.remove(id);
      }
    }
  }

  /**
   * Marks a CREATING tablet RUNNING once its group proved it came up: a reported leader, or a
   * hibernated group (only a leader hibernates one, see docs/dense-nodes.md; this happens when
   * the master was away through creation and the idle period). Returns whether it did.
   */
  boolean promoteIfUp(SysTabletEntryPB tablet) {
    String id = tablet.getTabletId();
    ReplicaReports.Leader leader = reports.leader(id);
    if (leader == null && reports.isHibernated(id)) {
      leader = new ReplicaReports.Leader("", reports.hibernatedAt(id));
    }
    if (leader == null) {
      return false;
    }
    markRunning(tablet, leader);
    return true;
  }

  /** Persists that a CREATING tablet has a leader; duplicate calls are dropped. */
  private void markRunning(SysTabletEntryPB tablet, ReplicaReports.Leader leader) {
    String id = tablet.getTabletId();
    if (!runningInFlight.add(id)) {
      return;
    }
    SysTabletEntryPB running = tablet.toBuilder()
        .setState(SysTabletStatePB.SYS_TABLET_RUNNING)
        .setLeaderUuid(leader.uuid())
        .setTerm(leader.term())
        .build();
    catalog.write(SysCatalogBatchPB.newBuilder()
            .addOps(SysCatalogOpPB.newBuilder().setPutTablet(running))
            .build())
        .whenComplete((v, t) -> {
          runningInFlight.remove(id);
          if (t != null) {
            LOG.info("could not mark tablet {} RUNNING (will retry): {}", id, t.getMessage());
          } else {
            // lastSent stays until every replica reported: see sweep().
            LOG.info("tablet {} is RUNNING with leader {} in term {}", id, leader.uuid(),
                leader.term());
          }
        });
  }

  /** Sends CreateTablet now, or queues it behind the tserver's calls in flight. */
  private void send(SysTableEntryPB table, SysTabletEntryPB tablet, RaftPeerPB replica) {
    String id = tablet.getTabletId();
    // Marks the replica as sent to: the sweep re-sends only after the retry interval, and a
    // waiting call still goes out only while its tablet is pending (see fire).
    lastSent.computeIfAbsent(id, k -> new ConcurrentHashMap<>())
        .put(replica.getUuid(), nanoClock.getAsLong());
    Window w = windows.computeIfAbsent(replica.getUuid(), k -> new Window());
    Call call = new Call(table, tablet, replica);
    synchronized (w) {
      if (!w.busy.add(id)) {
        return; // a call for this replica is out or waiting
      }
      if (w.inFlight >= MAX_IN_FLIGHT_PER_TSERVER) {
        w.waiting.add(call);
        return;
      }
      w.inFlight++;
    }
    if (!fire(w, call)) {
      done(w, id);
    }
  }

  /**
   * Sends {@code call} (its window slot taken); false, without sending, when its tablet is no
   * longer pending (dropped, or every replica reported while it waited).
   */
  private boolean fire(Window w, Call call) {
    String id = call.tablet().getTabletId();
    Map<String, Long> sent = lastSent.get(id);
    if (sent == null) {
      return false;
    }
    sent.put(call.replica().getUuid(), nanoClock.getAsLong());
    HostPort addr = HostPort.fromPb(call.replica().getRpcAddress());
    CompletableFuture<Void> f;
    try {
      f = admin.createTablet(addr, request(call.table(), call.tablet()));
    } catch (RuntimeException e) {
      LOG.info("CreateTablet {} on tserver {} at {} not sent (will retry): {}", id,
          call.replica().getUuid(), addr, e.getMessage());
      return false;
    }
    f.whenComplete((v, t) -> {
      if (t != null) {
        LOG.info("CreateTablet {} on tserver {} at {} failed (will retry): {}", id,
            call.replica().getUuid(), addr, t.getMessage());
      }
      done(w, id);
    });
    return true;
  }

  /** Frees the slot of {@code tabletId}'s call and sends the next waiting one, if any. */
  private void done(Window w, String tabletId) {
    String finished = tabletId;
    while (true) {
      Call next;
      synchronized (w) {
        w.busy.remove(finished);
        next = w.waiting.poll();
        if (next == null) {
          w.inFlight--;
          return;
        }
      }
      // The slot passes to next.
      if (fire(w, next)) {
        return;
      }
      finished = next.tablet().getTabletId();
    }
  }

  static CreateTabletRequestPB request(SysTableEntryPB table, SysTabletEntryPB tablet) {
    return CreateTabletRequestPB.newBuilder()
        .setTableId(table.getTableId())
        .setTableName(table.getName())
        .setTabletId(tablet.getTabletId())
        .setPartition(tablet.getPartition())
        .setSchema(table.getSchema())
        .setPartitionSchema(table.getPartitionSchema())
        .addAllPeers(tablet.getReplicasList())
        // Still wrapped by the cluster key: each tserver re-wraps it under its own server key.
        .setWrappedTabletKey(tablet.getWrappedTabletKey())
        .setTabletKeyVersion(tablet.getTabletKeyVersion())
        .build();
  }
}
