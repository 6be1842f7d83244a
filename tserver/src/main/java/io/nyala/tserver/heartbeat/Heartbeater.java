package io.nyala.tserver.heartbeat;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.log.LogContext;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.master.TabletReportPB;
import io.nyala.common.rpc.Channels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends {@code TSHeartbeat} to the leader master every interval, and at once when woken (leader
 * change, tablet created or deleted). The first report after start, and any the master asks for,
 * is full; the others carry only tablets whose report changed since the last one the master
 * acknowledged, and the tablets removed since.
 *
 * <p>Runs on one thread of its own; {@link #wake} may be called from any thread.
 */
public final class Heartbeater implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Heartbeater.class);
  private static final long WARN_EVERY_MS = 10_000;

  private final String serverName;
  private final List<HostPort> masters;
  private final Channels channels;
  private final long intervalMs;
  private final Supplier<ServerRegistrationPB> registration;
  private final Supplier<List<ReportedTabletPB>> reports;
  private final Object wakeLock = new Object();
  private boolean woken;
  private volatile boolean stopped;
  private Thread thread;

  // Heartbeat thread only.
  private HostPort leader;
  private boolean needFull = true;
  private long sequence;
  private Map<String, ReportedTabletPB> acknowledged = new HashMap<>();
  private static final long RETRY_MIN_MS = 50;
  private static final long QUIET_START_MS = 5_000;
  private long lastWarnMs;
  private volatile long heartbeatsSent;
  /** The web UI of the master that last answered as leader, or null (none, or its web is off). */
  private volatile HostPort leaderMasterHttp;
  /** Which masters may be obeyed (docs/data-safety.md); null = any (tests of this class). */
  private volatile ClusterIdGuard clusterGuard;
  /** The server's data dirs: how many, and which failed (docs/data-safety.md, "Disk faults"). */
  private volatile int dataDirCount;
  private volatile Supplier<? extends Collection<Path>> failedDataDirs = List::of;
  /** Takes the leader's token signing keys from each answer (docs/architecture.md). */
  private volatile Consumer<List<TokenSigningPublicKeyPB>> tokenKeys = keys -> { };

  /**
   * Where a rotation of the cluster key reaches this server (docs/encryption.md, "Rotating the
   * cluster key"): heartbeats report {@link #version}, and an answer naming another version
   * calls {@link #moveTo}.
   */
  public interface ClusterKeySink {
    /** The version the server key is wrapped by now; 0 when the server does not encrypt. */
    int version();

    /** Re-wraps the server key under {@code version}; throws if it cannot. */
    void moveTo(int version);
  }

  /** Reports and follows the cluster key version; null: the server does not encrypt. */
  private volatile ClusterKeySink clusterKey;

  public Heartbeater(String serverName, List<HostPort> masters, Channels channels,
      long intervalMs, Supplier<ServerRegistrationPB> registration,
      Supplier<List<ReportedTabletPB>> reports) {
    this.serverName = serverName;
    this.masters = List.copyOf(masters);
    this.channels = channels;
    this.intervalMs = intervalMs;
    this.registration = registration;
    this.reports = reports;
  }

  public void start() {
    thread = LogContext.threadFactory(serverName, "heartbeat").newThread(this::run);
    thread.setDaemon(true);
    thread.start();
  }

  /** Obeys only masters of the cluster {@code guard} accepts. Call before {@link #start}. */
  public void setClusterGuard(ClusterIdGuard guard) {
    this.clusterGuard = guard;
  }

  /**
   * Reports the server's {@code count} data dirs and those that failed, so that the master
   * places no new replica on a server whose every data dir failed.
   */
  public void setDataDirs(int count, Supplier<? extends Collection<Path>> failed) {
    this.dataDirCount = count;
    this.failedDataDirs = failed;
  }

  /**
   * Hands the token signing public keys of every leader answer that carries some to
   * {@code sink}: the server's offline check of clients' tokens. Call before {@link #start}.
   */
  public void setTokenKeysSink(Consumer<List<TokenSigningPublicKeyPB>> sink) {
    this.tokenKeys = sink;
  }

  /** Reports the cluster key version and follows rotations. Call before {@link #start}. */
  public void setClusterKeySink(ClusterKeySink sink) {
    this.clusterKey = sink;
  }

  /** Sends the next heartbeat now rather than at the end of the interval. */
  public void wake() {
    synchronized (wakeLock) {
      woken = true;
      wakeLock.notifyAll();
    }
  }

  /** The leader master's HTTP address as its last heartbeat response gave it, or null. */
  public HostPort leaderMasterHttpAddress() {
    return leaderMasterHttp;
  }

  /** The configured master RPC addresses. */
  public List<HostPort> masters() {
    return masters;
  }

  /** Successful heartbeats so far (for tests and pages). */
  public long heartbeatsSent() {
    return heartbeatsSent;
  }

  private void run() {
    long retryMs = RETRY_MIN_MS;
    long failingSinceMs = 0;
    while (!stopped) {
      long waitMs = intervalMs;
      try {
        heartbeatOnce();
        retryMs = RETRY_MIN_MS;
        failingSinceMs = 0;
      } catch (RuntimeException e) {
        // A master that is starting or electing answers soon: retry fast, backing off to the
        // interval, and only warn once the failures last (start-up is not worth a warning).
        long now = nowMs();
        failingSinceMs = failingSinceMs == 0 ? now : failingSinceMs;
        if (now - failingSinceMs >= QUIET_START_MS) {
          warnRateLimited("no master answered a heartbeat: " + e.getMessage());
        }
        waitMs = Math.min(intervalMs, retryMs);
        retryMs = Math.min(intervalMs, retryMs * 2);
      }
      synchronized (wakeLock) {
        long deadline = nowMs() + waitMs;
        while (!woken && !stopped) {
          long left = deadline - nowMs();
          if (left <= 0) {
            break;
          }
          try {
            wakeLock.wait(left);
          } catch (InterruptedException e) {
            return;
          }
        }
        woken = false;
      }
    }
  }

  private void heartbeatOnce() {
    List<ReportedTabletPB> current = reports.get();
    Map<String, ReportedTabletPB> now = new HashMap<>();
    current.forEach(r -> now.put(r.getTabletId(), r));
    TabletReportPB.Builder report = TabletReportPB.newBuilder()
        .setIsIncremental(!needFull).setSequenceNumber(sequence++);
    for (ReportedTabletPB r : current) {
      if (needFull || !r.equals(acknowledged.get(r.getTabletId()))) {
        report.addUpdatedTablets(r);
      }
    }
    if (!needFull) {
      for (String id : acknowledged.keySet()) {
        if (!now.containsKey(id)) {
          report.addRemovedTabletIds(id);
        }
      }
    }
    ClusterIdGuard guard = clusterGuard;
    ClusterKeySink key = clusterKey;
    TSHeartbeatRequestPB req = TSHeartbeatRequestPB.newBuilder()
        .setRegistration(registration.get()).setTabletReport(report)
        .setNumLiveTablets(current.size()).setNumDataDirs(dataDirCount)
        .addAllFailedDataDirs(failedDataDirs.get().stream().map(Path::toString).toList())
        .setClusterId(guard == null ? "" : guard.accepted())
        .setClusterKeyVersion(key == null ? 0 : key.version()).build();
    TSHeartbeatResponsePB resp = sendToLeader(req);
    acknowledged = now;
    needFull = resp.getNeedsFullTabletReport();
    leaderMasterHttp = resp.hasMasterHttpAddress()
        ? HostPort.fromPb(resp.getMasterHttpAddress()) : null;
    if (resp.getTokenSigningKeysCount() > 0) {
      try {
        tokenKeys.accept(resp.getTokenSigningKeysList());
      } catch (NyalaException e) {
        warnRateLimited("token signing keys from master " + leader + " refused: "
            + e.getMessage());
      }
    }
    followClusterKey(key, resp.getClusterKeyVersion());
    heartbeatsSent++;
  }

  private void followClusterKey(ClusterKeySink key, int version) {
    if (key == null || version <= 0 || key.version() == 0 || key.version() == version) {
      return;
    }
    try {
      key.moveTo(version);
      wake();
    } catch (NyalaException e) {
      warnRateLimited("cannot move to cluster key version " + version + ": " + e.getMessage());
    }
  }

  /** Tries the known leader, then every master, following NOT_LEADER hints. */
  private TSHeartbeatResponsePB sendToLeader(TSHeartbeatRequestPB req) {
    List<HostPort> order = new ArrayList<>();
    if (leader != null) {
      order.add(leader);
    }
    order.addAll(masters);
    NyalaException last = NyalaException.unavailable("no master addresses configured");
    for (int i = 0; i < order.size() && i < masters.size() + 4; i++) {
      HostPort m = order.get(i);
      try {
        // Channels#get cuts gRPC's reconnect backoff short: a master that was not listening
        // yet (starting with this server, or restarting) is reached on the next heartbeat.
        TSHeartbeatResponsePB resp = MasterServiceGrpc.newBlockingStub(channels.get(m))
            .withDeadlineAfter(Math.max(1000, intervalMs * 2), TimeUnit.MILLISECONDS)
            .tSHeartbeat(req);
        ClusterIdGuard guard = clusterGuard;
        if (guard != null && !resp.getClusterId().isEmpty()
            && !guard.acceptMaster(resp.getClusterId(), m.toString())) {
          last = NyalaException.illegalState("master %s belongs to cluster %s, not %s", m,
              resp.getClusterId(), guard.accepted());
          continue;
        }
        if (NyalaException.isError(resp.getError())) {
          NyalaException e = NyalaException.fromPb(resp.getError());
          // Go to the hinted leader next, unless it was just tried (its view is then stale).
          HostPort hint = e.leaderRpcAddress();
          if (hint != null && !order.subList(0, i + 1).contains(hint)) {
            order.add(i + 1, hint);
          }
          last = e;
          continue;
        }
        if (!m.equals(leader)) {
          LOG.info("heartbeating to master {}", m);
        }
        leader = m;
        return resp;
      } catch (RuntimeException e) {
        last = NyalaException.unavailable("master %s: %s", m, e.getMessage());
      }
    }
    leader = null;
    throw last;
  }

  /** Monotonic milliseconds: backoff, waits and warning rates ignore wall-clock steps. */
  private static long nowMs() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
  }

  private void warnRateLimited(String msg) {
    long now = nowMs();
    if (lastWarnMs == 0 || now - lastWarnMs >= WARN_EVERY_MS) {
      lastWarnMs = now;
      LOG.warn(msg);
    }
  }

  @Override
  public void close() {
    stopped = true;
    wake();
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
