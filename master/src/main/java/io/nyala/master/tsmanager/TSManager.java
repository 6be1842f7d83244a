package io.nyala.master.tsmanager;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.ServerRegistrationPB;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry of tablet servers by uuid. A tserver is live while its last heartbeat is within
 * the unresponsive timeout, measured on an injectable nanosecond clock so tests can move time.
 * Registrations live in memory only: tservers re-register with every heartbeat.
 */
public final class TSManager {
  private static final Logger LOG = LoggerFactory.getLogger(TSManager.class);

  private final LongSupplier nanoClock;
  private final long unresponsiveNanos;
  private final Map<String, TSDescriptor> byUuid = new ConcurrentHashMap<>();
  /** Bumped when this master becomes leader: every tserver then owes a full tablet report. */
  private final AtomicLong epoch = new AtomicLong();
  /** When this master last became leader (or was created), on {@link #nanoClock}. */
  private volatile long listeningSinceNanos;

  public TSManager(LongSupplier nanoClock, long unresponsiveTimeoutMs) {
    this.nanoClock = nanoClock;
    this.unresponsiveNanos = TimeUnit.MILLISECONDS.toNanos(unresponsiveTimeoutMs);
    this.listeningSinceNanos = nanoClock.getAsLong();
  }

  /** Registers or refreshes a tserver that reports no data dirs; returns its descriptor. */
  public TSDescriptor heartbeat(ServerRegistrationPB reg, int numLiveTablets) {
    return heartbeat(reg, numLiveTablets, 0, List.of());
  }

  /**
   * Registers or refreshes a tserver with {@code numDataDirs} data dirs, {@code failedDataDirs}
   * of which failed; returns its descriptor.
   */
  public TSDescriptor heartbeat(ServerRegistrationPB reg, int numLiveTablets, int numDataDirs,
      List<String> failedDataDirs) {
    if (reg.getUuid().isEmpty()) {
      throw NyalaException.invalidArgument("heartbeat without a tablet server uuid");
    }
    if (!reg.hasRpcAddress() || reg.getRpcAddress().getHost().isEmpty()) {
      throw NyalaException.invalidArgument("tablet server %s registered without an RPC address",
          reg.getUuid());
    }
    long now = nanoClock.getAsLong();
    TSDescriptor d = byUuid.computeIfAbsent(reg.getUuid(), u -> {
      LOG.info("registered tablet server {} ({}) at {}", u, reg.getName(),
          reg.getRpcAddress().getHost() + ":" + reg.getRpcAddress().getPort());
      return new TSDescriptor(u, reg, now);
    });
    d.heartbeat(reg, numLiveTablets, now);
    if (d.dataDirs(numDataDirs, failedDataDirs)) {
      LOG.warn("{}: failed data dirs now {} of {}{}", d, failedDataDirs, numDataDirs,
          d.allDataDirsFailed() ? ": every one failed, no new replica goes there" : "");
    }
    return d;
  }

  /** Whether {@code d} still owes this leadership a full tablet report. */
  public boolean needsFullReport(TSDescriptor d) {
    return d.fullReportEpoch() != epoch.get();
  }

  public void fullReportReceived(TSDescriptor d) {
    d.setFullReportEpoch(epoch.get());
  }

  /**
   * A new leadership: ask everyone for a full report, and restart every liveness clock so a
   * tserver is not declared dead for silence that happened before this master was listening.
   */
  public void onBecomeLeader() {
    epoch.incrementAndGet();
    long now = nanoClock.getAsLong();
    listeningSinceNanos = now;
    resetLivenessClocks(now);
  }

  /**
   * Whether {@code uuid}, which the catalog names (e.g. as a replica's server) but which has not
   * heartbeated to this master, counts as dead: once this leadership has listened for the whole
   * unresponsive timeout. A tserver that died while no master was leading, or before a new
   * leader was elected, otherwise never registers and so is never found dead.
   */
  public boolean isSilentSinceLeadership(String uuid) {
    return !byUuid.containsKey(uuid)
        && nanoClock.getAsLong() - listeningSinceNanos > unresponsiveNanos;
  }

  /**
   * Starts every known tserver's liveness clock at {@code nowNanos} (this registry's clock), as
   * if each had just heartbeated: a new leader has heard nothing yet and must not take that
   * silence, or a heartbeat last seen by the previous leader, for death.
   */
  public void resetLivenessClocks(long nowNanos) {
    byUuid.values().forEach(d -> d.touch(nowNanos));
  }

  public TSDescriptor get(String uuid) {
    return byUuid.get(uuid);
  }

  public boolean isLive(TSDescriptor d) {
    return nanoClock.getAsLong() - d.lastHeartbeatNanos() <= unresponsiveNanos;
  }

  /** Whether the tserver is registered and heartbeating. */
  public boolean isLive(String uuid) {
    TSDescriptor d = byUuid.get(uuid);
    return d != null && isLive(d);
  }

  public long millisSinceHeartbeat(TSDescriptor d) {
    return TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - d.lastHeartbeatNanos());
  }

  /** Every registered tserver, ordered by uuid. */
  public List<TSDescriptor> all() {
    List<TSDescriptor> out = new ArrayList<>(byUuid.values());
    out.sort(Comparator.comparing(TSDescriptor::uuid));
    return out;
  }

  public List<TSDescriptor> live() {
    return all().stream().filter(this::isLive).toList();
  }

  /**
   * The live tservers that may take new replicas: not those whose every data dir failed
   * (docs/data-safety.md, "Disk faults"), as in Kudu.
   */
  public List<TSDescriptor> placeable() {
    return all().stream().filter(d -> isLive(d) && !d.allDataDirsFailed()).toList();
  }
}
