package io.nyala.tserver;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.schema.Schema;
import io.nyala.common.server.ServerBase;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.copy.CopySessions;
import io.nyala.tserver.copy.TabletCopyClient;
import io.nyala.tserver.copy.TabletCopyService;
import io.nyala.tserver.heartbeat.Heartbeater;
import io.nyala.tserver.scan.ScannerManager;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tablet server: hosts tablet replicas (one Ratis division each, DESIGN §4), serves writes and
 * scans, and heartbeats to the master. Start order: filesystem, tablet metadata, Raft, missing
 * groups, RPC, web, heartbeats; {@link #close()} undoes it in reverse.
 */
public class TabletServer extends ServerBase {
  private static final Logger LOG = LoggerFactory.getLogger(TabletServer.class);
  public static final int DEFAULT_RPC_PORT = 7050;
  public static final int DEFAULT_RAFT_PORT = 7060;
  public static final int DEFAULT_WEB_PORT = 8050;

  private final TserverOptions topts;
  private TabletManager tabletManager;
  private ScannerManager scanners;
  private CopySessions copySessions;
  private volatile Heartbeater heartbeater;
  private MetricRegistry.Counter opsApplied;

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
    openFs();
    opsApplied = metrics.counter("ops_applied_total",
        "Row operations applied by this server's tablet replicas (leaders and followers)");
    tabletManager = new TabletManager(fs.walDir().resolve("tablet-meta"), fs.raftDir(),
        uuid(), new Listener(), fs.env(), keyProvider, fs.serverKey());
    tabletManager.load();
    startTabletCopy();
    tabletManager.removeOrphanGroupDirs();
    try {
      Files.createDirectories(fs.raftDir());
    } catch (IOException e) {
      throw NyalaException.ioError("cannot create " + fs.raftDir() + ": " + e.getMessage(), e);
    }
    buildRaftServer(tabletManager.registry(), null, RaftStorage.StartupOption.RECOVER);
    startRaft();
    tabletManager.start(raftServer);

    scanners = new ScannerManager(topts.scannerTtlMs);
    onClose(scanners);
    ScheduledExecutorService maintenance = Executors.newSingleThreadScheduledExecutor(
        LogContext.threadFactory(name, "maintenance"));
    onClose(maintenance::shutdownNow);
    long sweepMs = Math.max(50, Math.min(5000,
        Math.min(topts.scannerTtlMs, topts.tabletCopySessionTtlMs) / 2));
    maintenance.scheduleWithFixedDelay(this::sweep, sweepMs, sweepMs, TimeUnit.MILLISECONDS);

    WriteHandler writes = new WriteHandler(tabletManager, () -> raftServer,
        topts.maxWriteRequestBytes, topts.faultDropWriteResponseAfterCommit, metrics);
    if (topts.faultDropWriteResponseAfterCommit) {
      LOG.warn("UNSAFE test fault on: --fault_drop_write_response_after_commit withholds the "
          + "first answer to every committed write");
    }
    ScanHandler scans = new ScanHandler(tabletManager, () -> raftServer, scanners,
        topts.scannerDefaultBatchRows, metrics);
    startRpc(List.of(
        new TabletServerServices.Data(tabletManager, () -> raftServer, writes, scans, scanners),
        new TabletServerServices.Admin(tabletManager, () -> raftServer, scanners, copySessions,
            channels),
        new TabletCopyService(copySessions)));
    registerGauges();
    startWeb(() -> StatusPage.render(this));
    startHeartbeats();
    LOG.info("tablet server {} (uuid {}) serving RPC on {}, Raft on {}, HTTP on {}", name,
        uuid(), rpcAddress(), raftAddress(), httpAddress());
  }

  /** Both sides of tablet copy: the sessions served here and the client replicas pull with. */
  private void startTabletCopy() {
    copySessions = new CopySessions(
        tabletId -> tabletManager.get(tabletId).stateMachine().openCopyImage(),
        topts.tabletCopySessionTtlMs, System::currentTimeMillis);
    onClose(copySessions);
    ExecutorService copies = Executors.newFixedThreadPool(2,
        LogContext.threadFactory(name, "tablet-copy"));
    onClose(copies::shutdownNow);
    tabletManager.setCopier(new TabletCopyClient(channels, uuid(), copies, metrics));
  }

  private void startHeartbeats() {
    List<HostPort> masters = options.masters(7051);
    if (masters.isEmpty()) {
      LOG.warn("no --master_addresses: not heartbeating to any master");
      return;
    }
    Heartbeater hb = new Heartbeater(name, masters, channels, topts.heartbeatIntervalMs,
        this::registration, this::tabletReports);
    heartbeater = hb;
    onClose(hb);
    hb.start();
  }

  private void registerGauges() {
    metrics.gauge("tablets_total", "Tablet replicas hosted", () -> tabletManager.count());
    metrics.gauge("tablets_leader", "Tablet replicas that are Raft leader here", () ->
        tabletManager.replicas().stream().filter(this::isLeader).count());
    metrics.gauge("scanners_active", "Open scanners", () -> scanners.activeCount());
    metrics.gauge("tablet_copy_sessions_active", "Tablet copy sessions served by this server",
        () -> copySessions.activeCount());
  }

  private boolean isLeader(TabletReplica r) {
    try {
      return raftServer.getDivision(r.groupId()).getInfo().isLeader();
    } catch (IOException e) {
      return false;
    }
  }

  private void sweep() {
    try {
      scanners.sweep();
      copySessions.sweep();
      for (TabletReplica r : tabletManager.replicas()) {
        TabletStateMachine sm = r.stateMachineOrNull();
        if (sm != null) {
          sm.store().collectGarbage();
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("maintenance pass failed", e);
    }
  }

  @Override
  protected void customizeRaft(RaftProperties p) {
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, topts.tabletSnapshotThresholdEntries);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftSettings.useStateMachineCopy(p);
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

  /** Asks Ratis for a snapshot of a tablet now; returns its index. For tools and tests. */
  public long snapshotTablet(String tabletId) {
    TabletReplica r = tabletManager.get(tabletId);
    return RaftCalls.snapshotNow(raftServer, r.groupId(), 30_000);
  }

  public TabletManager tabletManager() {
    return tabletManager;
  }

  public RaftServer raftServer() {
    return raftServer;
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
    public void applied(String tabletId, int rows) {
      opsApplied.add(rows);
    }

    @Override
    public void schemaAltered(String tabletId, Schema schema, String newTableName, long index) {
      tabletManager.schemaAltered(tabletId, schema, newTableName);
      Heartbeater hb = heartbeater;
      if (hb != null) {
        hb.wake();
      }
    }
  }
}
