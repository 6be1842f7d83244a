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
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces replicas on dead tablet servers and replicas reported FAILED, from the leader master
 * only. For each RUNNING tablet with such a replica and a live, healthy leader: pick the least-loaded live tserver that does
 * not hold the tablet, create a joining replica there (CreateTablet, joining), then ask the
 * tablet's leader to swap the dead peer for it in one compare-and-set configuration change
 * (ChangeConfig REPLACE_PEER with the catalog's peers as the expected configuration). When the
 * leader answers with the committed configuration, the catalog records the new replica list;
 * the evicted replica is deleted when its tserver returns and reports a tablet that no longer
 * lists it (the report processor does that).
 *
 * <p>At most one move per tablet is in flight ({@link #inFlight}); a failed move keeps its slot
 * until the retry interval has passed, so a flapping tablet is not hammered.
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

  /** Whether {@code tsUuid} is joining the tablet (its reports must not get it deleted). */
  public boolean isJoining(String tabletId, String tsUuid) {
    Move m = inFlight.get(tabletId);
    return m != null && m.joiner().equals(tsUuid);
  }

  /** A new leadership starts without moves of the previous one. */
  public void reset() {
    inFlight.clear();
  }

  /** One pass on the leader's background thread. */
  public void sweep() {
    long now = nanoClock.getAsLong();
    inFlight.values().removeIf(m -> now - m.startNanos() >= retryNanos
        && (m.failed() || now - m.startNanos() >= 3 * retryNanos));
    Set<String> live = tsManager.live().stream().map(TSDescriptor::uuid)
        .collect(Collectors.toSet());
    Set<String> dead = tsManager.all().stream().map(TSDescriptor::uuid)
        .filter(u -> !live.contains(u)).collect(Collectors.toSet());
    List<SysTabletEntryPB> affected = catalog.read(s -> s.tablets().stream()
        .filter(t -> t.getState() == SysTabletStatePB.SYS_TABLET_RUNNING)
        .filter(t -> t.getReplicasList().stream()
            .anyMatch(p -> toReplace(t.getTabletId(), p.getUuid(), dead)))
        .toList());
    Map<String, Integer> loads = liveLoads(live);
    for (SysTabletEntryPB t : affected) {
      if (inFlight.containsKey(t.getTabletId())) {
        continue;
      }
      ReplicaReports.Leader leader = reports.leader(t.getTabletId());
      if (leader == null || !live.contains(leader.uuid())
          || toReplace(t.getTabletId(), leader.uuid(), dead)) {
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
      start(t, leader.uuid(), victim, joiner, now);
    }
  }

  /**
   * A replica to replace: on a dead tserver, or reported FAILED (damaged on disk, see
   * docs/data-safety.md, "Damage is contained"); the latter is deleted once the committed
   * configuration no longer lists it.
   */
  private boolean toReplace(String tabletId, String tsUuid, Set<String> dead) {
    if (dead.contains(tsUuid)) {
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
        .addAllExpectedPeerUuids(tablet.getReplicasList().stream().map(RaftPeerPB::getUuid)
            .toList())
        .build();
    admin.createTablet(joinerTs.rpcAddress(), CatalogManager.createTabletRequest(table, tablet)
            .toBuilder().setJoining(true).build())
        .thenCompose(v -> admin.changeConfig(leaderTs.rpcAddress(), change))
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

  /** Moves in flight (for tests and pages). */
  public int inFlightCount() {
    return inFlight.size();
  }
}
