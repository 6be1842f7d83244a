package io.nyala.master.rereplication;

import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.master.placement.ReplicaPlacer;
import io.nyala.master.tsmanager.TSAdminClient;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces replicas on dead tablet servers and replicas reported FAILED, from the leader master
 * only. For each RUNNING tablet with such a replica and a live, healthy leader (or, for a
 * hibernated tablet, a live healthy replica that wakes the group and names its new leader: see
 * {@link ReplicaReports#callTarget}): pick the least-loaded live tserver that does
 * not hold the tablet, create a joining replica there (CreateTablet, joining), then ask the
 * tablet's leader to swap the dead peer for it in one compare-and-set configuration change
 * (ChangeConfig REPLACE_PEER with the catalog's peers as the expected configuration). When the
 * leader answers with the committed configuration, the catalog records the new replica list;
 * the evicted replica is deleted when its tserver returns and reports a tablet that no longer
 * lists it (the report processor does that).
 *
 * <p>At most one move per tablet is in flight ({@link #inFlight}); a failed move keeps its slot
 * until the retry interval has passed, so a flapping tablet is not hammered.
 *
 * <p>A joiner is never mistaken for a stray (docs/data-safety.md, "Re-replication"): the
 * ChangeConfig carries its deadline ({@code timeout_ms}, long enough for a tablet copy) and the
 * move stays in flight until the leader answers; a failed move stays while the joiner still
 * reports its copy in progress. Only then is it cleaned up: the joiner is deleted positively,
 * with the index of the committed configuration that excludes it, so a joiner whose
 * configuration committed after all refuses the delete (compare-and-set on the tserver).
 */
public final class ReReplicator {
  private static final Logger LOG = LoggerFactory.getLogger(ReReplicator.class);

  /** One replacement: {@code dead}'s replica of the tablet moves to {@code joiner}. */
  private record Move(String tabletId, String dead, String joiner, long startNanos,
      boolean failed) {}

  private final SysCatalog catalog;
  private final ReplicaReports reports;
  private final TSManager tsManager;
  private final TSAdminClient admin;
  private final ReplicaPlacer placer;
  private final LongSupplier nanoClock;
  private final long retryNanos;
  private final MetricRegistry.Counter replacements;
  /** How long the leader may wait for a move's configuration to commit (sent as timeout_ms). */
  private volatile long changeConfigTimeoutMs = 120_000;
  /** Tablets whose failed move's joiner is being deleted: the retry waits for the answer. */
  private final Set<String> cleaning = ConcurrentHashMap.newKeySet();
  /** Sweeps run so far (for tests and pages). */
  private final AtomicLong sweeps = new AtomicLong();
  /** tablet id → its move; written by the sweep and by RPC completions. */
  private final Map<String, Move> inFlight = new ConcurrentHashMap<>();

  public ReReplicator(CatalogManager catalogManager, TSManager tsManager, TSAdminClient admin,
      ReplicaPlacer placer, LongSupplier nanoClock, long retryMs, MetricRegistry metrics) {
    this.catalog = catalogManager.catalog();
    this.reports = catalogManager.reports();
    this.tsManager = tsManager;
    this.admin = admin;
    this.placer = placer;
    this.nanoClock = nanoClock;
    this.retryNanos = TimeUnit.MILLISECONDS.toNanos(retryMs);
    this.replacements = metrics.counter("rereplication_replacements_total",
        "Replicas on dead tablet servers replaced by a new replica elsewhere");
  }

  /**
   * Sets the deadline each ChangeConfig carries
   * ({@code --rereplication_change_config_timeout_ms}).
   */
  public void setChangeConfigTimeoutMs(long ms) {
    this.changeConfigTimeoutMs = ms;
  }

  /** Whether {@code tsUuid} is joining the tablet (its reports must not get it deleted). */
  public boolean isJoining(String tabletId, String tsUuid) {
    Move m = inFlight.get(tabletId);
    return m != null && m.joiner().equals(tsUuid);
  }

  /** A new leadership starts without moves of the previous one. */
  public void reset() {
    inFlight.clear();
    cleaning.clear();
  }

  /** One pass on the leader's background thread. */
  public void sweep() {
    try {
      sweepOnce();
    } finally {
      sweeps.incrementAndGet();
    }
  }

  private void sweepOnce() {
    long now = nanoClock.getAsLong();
    // A move whose ChangeConfig is unanswered stays: the call has its own deadline.
    inFlight.values().removeIf(m -> m.failed() && now - m.startNanos() >= retryNanos
        && cleanedUp(m));
    Set<String> live = tsManager.live().stream().map(TSDescriptor::uuid)
        .collect(Collectors.toSet());
    Set<String> dead = tsManager.all().stream().map(TSDescriptor::uuid)
        .filter(u -> !live.contains(u)).collect(Collectors.toSet());
    List<SysTabletEntryPB> affected = catalog.read(s -> s.tablets().stream()
        .filter(t -> t.getState() == SysTabletStatePB.SYS_TABLET_RUNNING)
        .filter(t -> t.getReplicasList().stream()
            .anyMatch(p -> toReplace(t.getTabletId(), p.getUuid(), dead)))
        .toList());
    // A tserver whose every data dir failed keeps its replicas but takes no new one.
    Map<String, Integer> loads = liveLoads(tsManager.placeable().stream()
        .map(TSDescriptor::uuid).collect(Collectors.toSet()));
    for (SysTabletEntryPB t : affected) {
      if (inFlight.containsKey(t.getTabletId())) {
        continue;
      }
      String target = reports.callTarget(t.getTabletId(), t.getReplicasList().stream()
              .map(RaftPeerPB::getUuid).toList(),
          u -> live.contains(u) && !toReplace(t.getTabletId(), u, dead), sweeps.get());
      if (target == null) {
        continue; // wait for the tablet to elect a live, healthy leader
      }
      Set<String> holders = t.getReplicasList().stream().map(RaftPeerPB::getUuid)
          .collect(Collectors.toSet());
      String joiner = placer.pickOne(loads, holders);
      if (joiner == null) {
        continue; // no live tserver without this tablet
      }
      loads.merge(joiner, 1, Integer::sum);
      String victim = t.getReplicasList().stream().map(RaftPeerPB::getUuid)
          .filter(u -> toReplace(t.getTabletId(), u, dead)).findFirst().orElseThrow();
      start(t, target, victim, joiner, now);
    }
  }

  /**
   * A replica to replace: on a dead tserver (one that stopped heartbeating, or never did to this
   * leader within the unresponsive timeout), or reported FAILED (damaged on disk, see
   * docs/data-safety.md, "Damage is contained"); the latter is deleted once the committed
   * configuration no longer lists it.
   */
  private boolean toReplace(String tabletId, String tsUuid, Set<String> dead) {
    if (dead.contains(tsUuid) || tsManager.isSilentSinceLeadership(tsUuid)) {
      return true;
    }
    ReplicaReports.ReplicaState r = reports.replica(tabletId, tsUuid);
    return r != null && r.state() == TabletStatePB.FAILED;
  }

  private Map<String, Integer> liveLoads(Set<String> live) {
    Map<String, Integer> counts = catalog.read(s -> {
      Map<String, Integer> m = new HashMap<>();
      s.tablets().forEach(t -> t.getReplicasList()
          .forEach(r -> m.merge(r.getUuid(), 1, Integer::sum)));
      return m;
    });
    Map<String, Integer> loads = new HashMap<>();
    live.forEach(u -> loads.put(u, counts.getOrDefault(u, 0)));
    return loads;
  }

  private void start(SysTabletEntryPB tablet, String leader, String victim, String joiner,
      long now) {
    String id = tablet.getTabletId();
    Move move = new Move(id, victim, joiner, now, false);
    inFlight.put(id, move);
    SysTableEntryPB table = catalog.read(s -> s.tableById(tablet.getTableId()));
    TSDescriptor joinerTs = tsManager.get(joiner);
    TSDescriptor leaderTs = tsManager.get(leader);
    if (table == null || joinerTs == null || leaderTs == null) {
      inFlight.put(id, new Move(id, victim, joiner, now, true));
      return;
    }
    RaftPeerPB newPeer = RaftPeerPB.newBuilder().setUuid(joiner)
        .setRpcAddress(joinerTs.registration().getRpcAddress())
        .setRaftAddress(joinerTs.registration().getRaftAddress()).build();
    LOG.info("replacing replica of tablet {} on tablet server {} ({}) with a new one on {}",
        id, victim, reports.replica(id, victim) != null
            && reports.replica(id, victim).state() == TabletStatePB.FAILED ? "FAILED" : "dead",
        joiner);
    ChangeConfigRequestPB change = ChangeConfigRequestPB.newBuilder()
        .setTabletId(id)
        .setType(ChangeConfigTypePB.REPLACE_PEER)
        .setNewPeer(newPeer)
        .setRemoveUuid(victim)
        .setTimeoutMs(changeConfigTimeoutMs)
        .addAllExpectedPeerUuids(tablet.getReplicasList().stream().map(RaftPeerPB::getUuid)
            .toList())
        .build();
    admin.createTablet(joinerTs.rpcAddress(), CatalogManager.createTabletRequest(table, tablet)
            .toBuilder().setJoining(true).build())
        .thenCompose(v -> TSAdminClient.followingLeaderHint(leaderTs.rpcAddress(),
            addr -> admin.changeConfig(addr, change)))
        .thenCompose(resp -> recordReplacement(id, victim, newPeer))
        .whenComplete((v, t) -> finish(move, t));
  }

  /** The leader committed the change: the catalog swaps the dead peer for the new one. */
  private CompletableFuture<Void> recordReplacement(String tabletId, String victim,
      RaftPeerPB newPeer) {
    SysTabletEntryPB current = catalog.read(s -> s.tablet(tabletId));
    if (current == null) {
      return CompletableFuture.completedFuture(null); // dropped meanwhile
    }
    SysTabletEntryPB.Builder b = current.toBuilder().clearReplicas();
    for (RaftPeerPB p : current.getReplicasList()) {
      if (!p.getUuid().equals(victim) && !p.getUuid().equals(newPeer.getUuid())) {
        b.addReplicas(p);
      }
    }
    b.addReplicas(newPeer);
    // The new configuration's index comes with the leader's next report (ConfigReconciler);
    // until then the catalog proves no replica's exclusion (docs/data-safety.md).
    b.setConfigIndex(0);
    return catalog.write(SysCatalogBatchPB.newBuilder()
        .addOps(SysCatalogOpPB.newBuilder().setPutTablet(b)).build());
  }

  private void finish(Move move, Throwable t) {
    if (t == null) {
      replacements.inc();
      inFlight.remove(move.tabletId(), move);
      LOG.info("tablet {}: replica on {} replaced by one on {}", move.tabletId(), move.dead(),
          move.joiner());
      return;
    }
    LOG.info("tablet {}: replacing the replica on {} with one on {} failed (retry in {} ms): {}",
        move.tabletId(), move.dead(), move.joiner(), TimeUnit.NANOSECONDS.toMillis(retryNanos),
        t.getMessage());
    inFlight.replace(move.tabletId(), move, new Move(move.tabletId(), move.dead(),
        move.joiner(), move.startNanos(), true));
  }

  /**
   * Whether a failed move may give up its slot now: not while its joiner still copies; once
   * the catalog's committed configuration excludes the joiner, the joiner is deleted with that
   * index (one whose configuration committed refuses) and the slot goes when that is answered;
   * a joiner the catalog lists succeeded after all.
   */
  private boolean cleanedUp(Move m) {
    if (cleaning.contains(m.tabletId())) {
      return false;
    }
    ReplicaReports.ReplicaState joiner = reports.replica(m.tabletId(), m.joiner());
    if (joiner != null && joiner.copying()) {
      return false;
    }
    SysTabletEntryPB t = catalog.read(s -> s.tablet(m.tabletId()));
    TSDescriptor ts = tsManager.get(m.joiner());
    if (t == null || ts == null || t.getConfigIndex() <= 0
        || t.getReplicasList().stream().anyMatch(p -> p.getUuid().equals(m.joiner()))) {
      return true;
    }
    // The retry (which may pick the same server) starts only once the delete was answered.
    LOG.info("tablet {}: cleaning up the failed move's replica on {}", m.tabletId(), m.joiner());
    cleaning.add(m.tabletId());
    admin.deleteTablet(ts.rpcAddress(), DeleteTabletRequestPB.newBuilder()
            .setTabletId(m.tabletId()).setCasConfigIndex(t.getConfigIndex())
            .setReason("failed re-replication move; committed configuration at index "
                + t.getConfigIndex() + " excludes it").build())
        .whenComplete((v, err) -> {
          if (err != null) {
            LOG.info("tablet {}: failed move's replica on {} not deleted: {}", m.tabletId(),
                m.joiner(), err.getMessage());
          }
          inFlight.remove(m.tabletId(), m);
          cleaning.remove(m.tabletId());
        });
    return false;
  }

  /** Sweeps completed so far (for tests and pages). */
  public long sweeps() {
    return sweeps.get();
  }

  /** Moves in flight (for tests and pages). */
  public int inFlightCount() {
    return inFlight.size();
  }
}
