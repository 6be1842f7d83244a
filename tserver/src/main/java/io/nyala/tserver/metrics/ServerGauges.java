package io.nyala.tserver.metrics;

import io.nyala.common.metrics.MetricRegistry;
import io.nyala.tserver.copy.CopySessions;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.replica.ReplicaHibernator;
import io.nyala.tserver.replica.ReplicaState;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.scan.ScannerManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.maintenance.CompactionResult;
import io.nyala.tserver.tablet.maintenance.CompactionStats;
import io.nyala.tserver.tablet.maintenance.MaintenanceScheduler;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The tablet server's gauges. Each reads its owner when scraped, so the owners must be started
 * before {@link #register} and outlive the registry's scrapes.
 */
public final class ServerGauges {
  private ServerGauges() {}

  /**
   * What the gauges read.
   *
   * @param tablets the replicas of this server
   * @param hibernator counts hibernations and wakes
   * @param isLeader whether a replica's Raft division is leader here
   * @param scanners open scanners
   * @param copySessions tablet copy sessions served here
   * @param maintenance the stores' flush and compaction scheduler
   * @param openStores the stores of replicas whose group is open
   * @param blockManager the server's block manager, read at each scrape
   */
  public record Sources(TabletManager tablets, ReplicaHibernator hibernator,
      Predicate<TabletReplica> isLeader, ScannerManager scanners, CopySessions copySessions,
      MaintenanceScheduler maintenance, Supplier<Collection<BlockTabletStore>> openStores,
      Supplier<BlockManager> blockManager) {}

  /** Registers every gauge and every counter kept elsewhere of the server in {@code metrics}. */
  public static void register(MetricRegistry metrics, Sources s) {
    registerReplicas(metrics, s);
    registerMaintenance(metrics, s);
    registerBlocks(metrics, s.blockManager());
  }

  private static void registerReplicas(MetricRegistry metrics, Sources s) {
    TabletManager tablets = s.tablets();
    metrics.gauge("tablets", "Tablet replicas hosted", () -> tablets.count());
    for (ReplicaState st : ReplicaState.values()) {
      metrics.gauge("tablet_replicas", "Tablet replicas hosted, by lifecycle state "
          + "(docs/dense-nodes.md)", Map.of("state", st.name().toLowerCase(Locale.ROOT)),
          () -> tablets.replicas().stream().filter(r -> r.state() == st).count());
    }
    metrics.counterFrom("tablet_hibernations_total",
        "Replicas hibernated here (their group closed)", () -> s.hibernator().hibernations());
    metrics.counterFrom("tablet_wakes_total", "Hibernated replicas woken here",
        () -> s.hibernator().wakes());
    metrics.counterFrom("tablet_cold_scans_total", "Scans of hibernated replicas answered "
        + "from their flushed store without a wake", () -> s.hibernator().coldReads().served());
    metrics.counterFrom("tablet_cold_scan_wakes_total", "Scans of hibernated replicas that woke "
        + "the group because its peers did not confirm it closed",
        () -> s.hibernator().coldReads().declined());
    metrics.gauge("tablets_leader", "Tablet replicas that are Raft leader here", () ->
        tablets.replicas().stream().filter(s.isLeader()).count());
    metrics.gauge("scanners_active", "Open scanners", () -> s.scanners().activeCount());
    metrics.gauge("tablet_copy_sessions_active", "Tablet copy sessions served by this server",
        () -> s.copySessions().activeCount());
  }

  private static void registerMaintenance(MetricRegistry metrics, Sources s) {
    MaintenanceScheduler maintenance = s.maintenance();
    metrics.counterFrom("tablet_flushes_total", "Tablet flushes by the maintenance thread",
        () -> maintenance.flushes());
    metrics.doubleCounterFrom("tablet_flush_seconds_total", "Time spent in those flushes",
        () -> maintenance.flushMillis() / 1000.0);
    metrics.counterFrom("tablet_maintenance_failures_total",
        "Flushes and compactions of open tablets that failed (each is logged)",
        () -> maintenance.failures());
    metrics.gauge("tablet_orphaned_blocks_deleted_at_start",
        "Blocks no superblock listed, deleted when this process started (left by a crash)",
        () -> s.tablets().orphanBlocksDeletedAtStart());
    metrics.gauge("tablet_orphaned_blocks_kept_at_start",
        "Blocks no superblock listed that this start did not delete because deleting them "
            + "looked unsafe (see the log and docs/data-safety.md)",
        () -> s.tablets().orphanBlocksKeptAtStart());
    metrics.counterFrom("tablet_compactions_total", "Tablet compactions by the maintenance thread",
        () -> maintenance.compactions());
    registerCompactions(metrics, maintenance.compactionStats());
    metrics.gauge("tablet_memory_bytes", "In-memory row data of all tablets (unflushed)",
        () -> s.openStores().get().stream().mapToLong(BlockTabletStore::memoryBytes).sum());
  }

  private static void registerCompactions(MetricRegistry metrics, CompactionStats stats) {
    for (CompactionResult.Kind k : CompactionResult.Kind.values()) {
      metrics.counterFrom("tablet_compactions_by_kind_total", "Tablet compactions by kind",
          Map.of("kind", k.name().toLowerCase(Locale.ROOT)), () -> stats.count(k));
    }
    for (CompactionStats.Figure f : CompactionStats.Figure.values()) {
      String name = "tablet_compaction_" + f.name().toLowerCase(Locale.ROOT) + "_total";
      String help = "Tablet compactions' " + f.name().toLowerCase(Locale.ROOT)
          + " read (side=in) and written (side=out)";
      metrics.counterFrom(name, help, Map.of("side", "in"), () -> stats.in(f));
      metrics.counterFrom(name, help, Map.of("side", "out"), () -> stats.out(f));
    }
  }

  private static void registerBlocks(MetricRegistry metrics, Supplier<BlockManager> bm) {
    metrics.gauge("block_manager_blocks_under_management", "Live blocks",
        () -> bm.get().metrics().blocksUnderManagement());
    metrics.gauge("block_manager_bytes_under_management", "Bytes of live blocks",
        () -> bm.get().metrics().bytesUnderManagement());
    metrics.gauge("block_manager_containers", "Log block manager containers",
        () -> bm.get().metrics().containers());
    metrics.gauge("block_manager_full_containers", "Containers that take no more blocks",
        () -> bm.get().metrics().fullContainers());
    metrics.counterFrom("block_manager_holes_punched_total",
        "Deleted block ranges really punched", () -> bm.get().metrics().holesPunched());
    metrics.counterFrom("block_manager_dead_containers_deleted_total",
        "Containers deleted because no live block was left in them",
        () -> bm.get().metrics().deadContainersDeleted());
    metrics.gauge("block_manager_failed_data_dirs", "Data dirs that failed at run time (an I/O "
        + "error on a block write or sync); they take no new blocks until a restart",
        () -> bm.get().metrics().failedDataDirs());
    metrics.counterFrom("block_manager_disk_full_errors_total",
        "Block writes and syncs that failed because the disk was full (ENOSPC)",
        () -> bm.get().metrics().noSpaceErrors());
  }
}
