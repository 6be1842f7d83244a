package io.nyala.tserver;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.env.DurableDirs;
import io.nyala.common.fault.CrashPoints;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.rpc.RpcServer;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.cert.CertificateRenewal;
import io.nyala.common.security.cert.CertificateRequester;
import io.nyala.common.server.ServerBase;
import io.nyala.tserver.background.PeriodicTasks;
import io.nyala.tserver.background.ServerPools;
import io.nyala.tserver.consensus.TabletRaftSettings;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.copy.CopySessions;
import io.nyala.tserver.copy.TabletCopyClient;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.log.LogBlockManager;
import io.nyala.tserver.heartbeat.ClusterIdGuard;
import io.nyala.tserver.heartbeat.Heartbeater;
import io.nyala.tserver.metrics.ServerGauges;
import io.nyala.tserver.replica.GrpcPeerChannel;
import io.nyala.tserver.replica.ReplicaHibernator;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.scan.ScannerManager;
import io.nyala.tserver.service.RpcServices;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.StoreCrashPoints;
import io.nyala.tserver.tablet.maintenance.CompactionPolicy;
import io.nyala.tserver.tablet.maintenance.MaintenanceScheduler;
import io.nyala.tserver.web.StatusPage;
import io.nyala.tserver.web.TabletsPage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tablet server: hosts tablet replicas (one Ratis division each, docs/architecture.md,
 * "Replication"), serves writes and scans, and heartbeats to the master. Start order: filesystem,
 * tablet metadata, Raft, missing groups, RPC, web, heartbeats; {@link #close()} undoes it in
 * reverse.
 */
public class TabletServer extends ServerBase {
  private static final Logger LOG = LoggerFactory.getLogger(TabletServer.class);
  public static final int DEFAULT_RPC_PORT = 7050;
  public static final int DEFAULT_RAFT_PORT = 7060;
  public static final int DEFAULT_WEB_PORT = 8050;

  /** How long opening a copy session may wait for a hibernated source to wake. */
  private static final long COPY_WAKE_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final TserverOptions topts;
  private ReplicaHibernator hibernator;
  private TabletManager tabletManager;
  private ScannerManager scanners;
  private CopySessions copySessions;
  private volatile Heartbeater heartbeater;
  private MetricRegistry.Counter opsApplied;
  /** Opened at start, closed after Raft (whose state machines read blocks) has stopped. */
  private BlockManager blockManager;
  private MaintenanceScheduler storeMaintenance;
  /** The cluster this server obeys (docs/data-safety.md); opened with the file system. */
  private ClusterIdGuard clusterGuard;
  /** Periodic work of the whole server; see {@link #maintenancePool()}. */
  private volatile ScheduledExecutorService maintenancePool;
  /** Set once the start completed: only a server that served hibernates before it stops. */
  private volatile boolean served;
  /** Renews the certificate from the master's CA while the server runs; null otherwise. */
  private CertificateRenewal certificateRenewal;

  public TabletServer(TserverOptions options) {
    super("tserver", options, DEFAULT_RPC_PORT, DEFAULT_RAFT_PORT, DEFAULT_WEB_PORT);
    this.topts = options;
  }

  /** Starts everything; returns once RPC, Raft and web are serving. */
  public void start() {
    try {
      startInternal();
    } catch (RuntimeException e) {
      NyalaException ne = NyalaException.from(e);
      LOG.error("tablet server {} failed to start: {}", name, ne.getMessage());
      close();
      throw new NyalaException(ne.code(), "tablet server " + name + " failed to start: "
          + ne.detail(), e);
    }
  }

  private void startInternal() {
    topts.checkMaxWriteRequestBytes();
    CrashPoints.installFromFlag(topts.faultCrashPoints, StoreCrashPoints.ALL);
    openFs();
    opsApplied = metrics.counter("ops_applied_total",
        "Row operations applied by this server's tablet replicas (leaders and followers)");
    clusterGuard = ClusterIdGuard.open(fs.env(), fs.walDir());
    if (wireTls.awaitsCertificate()) { // docs/architecture.md, "TLS and the internal CA"
      certificateRenewal = useRequestedCertificate(masterAddresses(),
          CertificateRequester.hosts(rpcAddress(), raftAddress(), clientRpcAddress()));
    }
    blockManager = BlockManagers.open(topts, fs);
    tabletManager = new TabletManager(fs.walDir().resolve("tablet-meta"), fs.raftDir(),
        uuid(), new Listener(), fs.env(), keyProvider, fs.serverKey(), blockManager,
        fs.walDir().resolve("tablet-data"));
    tabletManager.setHistoryRetention(HistoryRetention.ofSeconds(topts.tabletHistoryMaxAgeSec));
    tabletManager.allowMassOrphanGc(topts.orphanBlockGcAllowMassDelete);
    if (topts.faultTabletOpenDelayMs > 0) {
      LOG.warn("UNSAFE test fault on: --fault_tablet_open_delay_ms={} delays every open of a "
          + "replica's Raft group", topts.faultTabletOpenDelayMs);
      tabletManager.setFaultOpenDelayMs(topts.faultTabletOpenDelayMs);
    }
    tabletManager.load();
    startTabletCopy();
    tabletManager.removeOrphanGroupDirs();
    DurableDirs.create(fs.raftDir());
    buildRaftServer(tabletManager.registry(), null, RaftStorage.StartupOption.RECOVER);
    startRaft();
    tabletManager.start(raftServer);

    scanners = new ScannerManager(topts.scannerTtlMs);
    onClose(scanners);
    ScheduledExecutorService maintenance = ServerPools.maintenance(name);
    maintenancePool = maintenance;
    onClose(maintenance::shutdownNow);
    PeriodicTasks.scheduleSweep(maintenance, topts.scannerTtlMs, topts.tabletCopySessionTtlMs,
        scanners, copySessions, tabletManager);
    startHibernation(maintenance);
    if (certificateRenewal != null) {
      certificateRenewal.start(maintenance, metrics, wireTls);
    }

    if (!topts.enableMaintenanceManager) {
      LOG.warn("--enable_maintenance_manager=false: tablets flush only when asked and never "
          + "compact");
    }
    // Off = a first pass that never comes; the scheduler still answers its metrics.
    storeMaintenance = new MaintenanceScheduler(new MaintenanceScheduler.Policy(
        topts.flushThresholdMb << 20, TimeUnit.SECONDS.toNanos(topts.flushThresholdSecs),
        topts.memoryLimitMb << 20, topts.enableCompaction,
        CompactionPolicy.withBudget(topts.compactionBudgetMb << 20)), this::openStores,
        maintenance, topts.enableMaintenanceManager ? topts.maintenanceIntervalMs : Long.MAX_VALUE);
    onClose(storeMaintenance);

    if (topts.faultDropWriteResponseAfterCommit) {
      LOG.warn("UNSAFE test fault on: --fault_drop_write_response_after_commit withholds the "
          + "first answer to every committed write");
    }
    startRpc(RpcServices.build(
        new RpcServices.Parts(tabletManager, () -> raftServer, channels, clusterGuard, scanners,
            copySessions, hibernator, uuid(), metrics, ServerPools.writeBatches(name)),
        new RpcServices.Limits(topts.maxWriteRequestBytes, topts.writeMaxEntriesInFlight,
            topts.faultDropWriteResponseAfterCommit, topts.scannerDefaultBatchRows)));
    ServerGauges.register(metrics, new ServerGauges.Sources(tabletManager, hibernator,
        this::isLeader, scanners, copySessions, storeMaintenance, this::openStores,
        this::blockManager));
    boolean exposeTabletIds = options.webserverExposeTabletIds;
    startWeb(() -> StatusPage.render(this, exposeTabletIds),
        web -> TabletsPage.addTo(web, this, exposeTabletIds));
    startHeartbeats();
    served = true;
    LOG.info("tablet server {} (uuid {}) serving RPC on {}, Raft on {}, HTTP on {}", name,
        uuid(), rpcAddress(), raftAddress(), httpAddress());
  }

  /**
   * Hibernation of idle replicas and their wake on demand (docs/dense-nodes.md): a pass looks
   * at every replica once a second (at most) on the maintenance pool; rounds, which wait for
   * followers' answers, run on a pool of their own.
   */
  private void startHibernation(ScheduledExecutorService maintenance) {
    ThreadPoolExecutor rounds = ServerPools.hibernationRounds(name);
    onClose(rounds::shutdownNow);
    long retryWindowMs = RaftServerConfigKeys.RetryCache.expiryTime(raftServer.getProperties())
        .toLong(TimeUnit.MILLISECONDS);
    // Not shut down with the server (see ServerPools.peerCallbacks).
    ThreadPoolExecutor peerCallbacks = ServerPools.peerCallbacks(name);
    hibernator = new ReplicaHibernator(tabletManager, uuid(),
        new GrpcPeerChannel(channels, clusterGuard, peerCallbacks), topts.tabletHibernateAfterMs,
        retryWindowMs,
        id -> scanners.hasScanners(id) || copySessions.hasSessions(id), rounds);
    if (topts.tabletHibernateAfterMs <= 0) {
      LOG.info("--tablet_hibernate_after_ms=0: replicas never hibernate (cold ones still wake)");
    }
    MetricRegistry.Histogram wakeLatency = metrics.histogram("tablet_wake_latency_seconds",
        "Time to wake a hibernated replica here: from the first request that needed it to its "
            + "Raft group open (the election follows)",
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5);
    hibernator.onWake(ms -> wakeLatency.observe(ms / 1000.0));
    PeriodicTasks.scheduleHibernationPasses(maintenance, hibernator, topts.tabletHibernateAfterMs);
  }

  /**
   * A clean stop leaves quiet groups cold (docs/dense-nodes.md): peers, Ratis and the RPC
   * server still run here, so the rounds (this server leading or agreeing) work as usual.
   */
  @Override
  protected void beforeStop() {
    if (served && hibernator != null) {
      hibernator.beforeStop(topts.tabletHibernateOnStopMs);
    }
  }

  /** Both sides of tablet copy: the sessions served here and the client replicas pull with. */
  private void startTabletCopy() {
    copySessions = new CopySessions(tabletId -> {
      TabletReplica r = tabletManager.use(tabletId, System.nanoTime() + COPY_WAKE_NANOS);
      try {
        return r.stateMachine().openCopyImage();
      } finally {
        r.exit();
      }
    }, topts.tabletCopySessionTtlMs, System::nanoTime);
    onClose(copySessions);
    ThreadPoolExecutor copies = ServerPools.tabletCopies(name);
    onClose(copies::shutdownNow);
    TabletCopyClient copier = new TabletCopyClient(channels, uuid(), copies, metrics);
    if (topts.faultTabletCopyFetchDelayMs > 0) {
      LOG.warn("UNSAFE test fault on: --fault_tablet_copy_fetch_delay_ms={} delays every "
          + "tablet copy", topts.faultTabletCopyFetchDelayMs);
      copier.setFaultFetchDelayMs(topts.faultTabletCopyFetchDelayMs);
    }
    tabletManager.setCopier(copier);
  }

  private Collection<BlockTabletStore> openStores() {
    List<BlockTabletStore> out = new ArrayList<>();
    for (TabletReplica r : tabletManager.replicas()) {
      TabletStateMachine sm = r.stateMachineOrNull();
      BlockTabletStore s = r.blockStore();
      if (sm != null && sm.isInitialized() && s != null) {
        out.add(s);
      }
    }
    return out;
  }

  @Override
  protected void closeStorage() {
    BlockManager bm = blockManager;
    blockManager = null;
    if (bm != null) {
      try {
        bm.close();
      } catch (RuntimeException e) {
        LOG.warn("error while closing the block manager", e);
      }
    }
  }

  public BlockManager blockManager() {
    return blockManager;
  }

  private void startHeartbeats() {
    List<HostPort> masters = options.masters(7051);
    if (masters.isEmpty()) {
      LOG.warn("no --master_addresses: not heartbeating to any master");
      return;
    }
    Heartbeater hb = new Heartbeater(name, masters, channels, topts.heartbeatIntervalMs,
        this::registration, this::tabletReports);
    hb.setClusterGuard(clusterGuard);
    hb.setTokenKeysSink(tokenVerifier::setKeys);
    hb.setClusterKeySink(new ClusterKeyFollower(fs, keyProvider));
    hb.setDataDirs(fs.dataDirs().size(), () -> blockManager instanceof LogBlockManager lbm
        ? lbm.dirFailures().failedDirs() : Set.<Path>of());
    heartbeater = hb;
    onClose(hb);
    hb.start();
  }

  private boolean isLeader(TabletReplica r) {
    try {
      return raftServer.getDivision(r.groupId()).getInfo().isLeader();
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  protected void customizeRpc(RpcServer rpc) {
    RpcServices.giveLifecycleCallsOwnThreads(rpc);
  }

  @Override
  protected void customizeRaft(RaftProperties p) {
    TabletRaftSettings.apply(p,
        topts.maxWriteRequestBytes + TserverOptions.RAFT_ENTRY_OVERHEAD_BYTES);
    // Raw --raft_property overrides still win over these role defaults.
    options.raftProperties.forEach(p::set);
  }

  List<ReportedTabletPB> tabletReports() {
    List<ReportedTabletPB> out = new ArrayList<>();
    for (TabletReplica r : tabletManager.replicas()) {
      out.add(r.report(raftServer));
    }
    return out;
  }

  /** Flushes a tablet and asks Ratis for a snapshot; returns its index. Tools and tests. */
  public long snapshotTablet(String tabletId) {
    return tabletManager.get(tabletId).flushAndSnapshot(raftServer, 30_000);
  }

  public TabletManager tabletManager() {
    return tabletManager;
  }

  /** The leader master's HTTP address from its last heartbeat answer, or null (none, off). */
  public HostPort leaderMasterHttpAddress() {
    Heartbeater hb = heartbeater;
    return hb == null ? null : hb.leaderMasterHttpAddress();
  }

  /** The masters this server heartbeats to (their RPC addresses). */
  public List<HostPort> masterAddresses() {
    return options.masters(7051);
  }

  /** Hibernation, wakes and cold reads of this server's replicas (docs/dense-nodes.md). */
  public ReplicaHibernator hibernator() {
    return hibernator;
  }

  public RaftServer raftServer() {
    return raftServer;
  }

  /**
   * The server's shared pool for periodic work (sweeps, flushes, compactions): schedule a
   * server-wide periodic task here rather than start a thread or a timer per replica.
   */
  public ScheduledExecutorService maintenancePool() {
    return maintenancePool;
  }

  public ScannerManager scanners() {
    return scanners;
  }

  /** Bridges state machine events to reports and metrics. */
  private final class Listener implements TabletStateMachine.Listener {
    @Override
    public void leaderChanged(String tabletId) {
      Heartbeater hb = heartbeater;
      if (hb != null) {
        hb.wake();
      }
    }

    @Override
    public void rowsApplied(String tabletId, int rows) {
      opsApplied.add(rows);
    }

    @Override
    public void stateMachineClosed(String tabletId, RaftGroupMemberId member) {
      tabletManager.replicaClosed(tabletId, member);
    }

    @Override
    public void dataDamaged(String tabletId, NyalaException why) {
      tabletManager.replicaFailed(tabletId, why);
    }

    @Override
    public void schemaAltered(String tabletId, Schema schema, String newTableName, long index) {
      tabletManager.schemaAltered(tabletId, schema, newTableName);
      leaderChanged(tabletId); // reports at once
    }
  }
}
