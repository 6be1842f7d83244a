package io.nyala.master.tsmanager;

import io.nyala.common.HostPort;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.master.TSInfoPB;
import java.util.List;

/**
 * What the master knows about one tablet server. Mutable: every field is guarded by this
 * object's monitor, since heartbeats (RPC threads) write while pages and placement read.
 */
public final class TSDescriptor {
  private final String uuid;
  private ServerRegistrationPB registration;
  private long lastHeartbeatNanos;
  private int numLiveTablets;
  /** Its data dirs (0 = not reported) and those that failed (docs/data-safety.md). */
  private int numDataDirs;
  private List<String> failedDataDirs = List.of();
  /** The registry epoch of the last full tablet report; a new leadership bumps the epoch. */
  private long fullReportEpoch = -1;
  /** The cluster key version its last heartbeat reported (docs/encryption.md); 0 if none. */
  private volatile int clusterKeyVersion;

  TSDescriptor(String uuid, ServerRegistrationPB registration, long nowNanos) {
    this.uuid = uuid;
    this.registration = registration;
    this.lastHeartbeatNanos = nowNanos;
  }

  public String uuid() {
    return uuid;
  }

  public synchronized ServerRegistrationPB registration() {
    return registration;
  }

  public synchronized long lastHeartbeatNanos() {
    return lastHeartbeatNanos;
  }

  /** Tablets the tserver said it hosts in its last heartbeat. */
  public synchronized int numLiveTablets() {
    return numLiveTablets;
  }

  synchronized void heartbeat(ServerRegistrationPB reg, int liveTablets, long nowNanos) {
    registration = reg;
    numLiveTablets = liveTablets;
    lastHeartbeatNanos = nowNanos;
  }

  /** Records the data dirs the last heartbeat reported; returns whether the failed ones changed. */
  synchronized boolean dataDirs(int count, List<String> failed) {
    numDataDirs = count;
    boolean changed = !failedDataDirs.equals(failed);
    failedDataDirs = List.copyOf(failed);
    return changed;
  }

  /** The data dirs that failed at run time, as the tserver last reported them. */
  public synchronized List<String> failedDataDirs() {
    return failedDataDirs;
  }

  /** How many data dirs the tserver has; 0 if it does not report them. */
  public synchronized int numDataDirs() {
    return numDataDirs;
  }

  /**
   * Whether every data dir of the tserver failed: it can create no block, so no new replica
   * goes there (docs/data-safety.md, "Disk faults").
   */
  public synchronized boolean allDataDirsFailed() {
    return numDataDirs > 0 && failedDataDirs.size() >= numDataDirs;
  }

  synchronized void touch(long nowNanos) {
    lastHeartbeatNanos = nowNanos;
  }

  synchronized long fullReportEpoch() {
    return fullReportEpoch;
  }

  synchronized void setFullReportEpoch(long epoch) {
    fullReportEpoch = epoch;
  }

  /** The cluster key version its server key was wrapped by at its last heartbeat; 0: none. */
  public int clusterKeyVersion() {
    return clusterKeyVersion;
  }

  /** Records the cluster key version a heartbeat reported. */
  public void setClusterKeyVersion(int version) {
    this.clusterKeyVersion = version;
  }

  public HostPort rpcAddress() {
    return HostPort.fromPb(registration().getRpcAddress());
  }

  /**
   * The wire form clients see: the address the tserver advertised for clients when it gave one
   * (docs/architecture.md, "Listeners and addresses"), else the one peers use.
   */
  public TSInfoPB toTsInfo() {
    ServerRegistrationPB r = registration();
    return TSInfoPB.newBuilder()
        .setUuid(uuid)
        .setRpcAddress(r.hasClientRpcAddress() ? r.getClientRpcAddress() : r.getRpcAddress())
        .setRaftAddress(r.getRaftAddress())
        .setHttpAddress(r.getHttpAddress())
        .setName(r.getName())
        .build();
  }

  @Override
  public String toString() {
    return "tserver " + uuid + " (" + registration().getName() + ")";
  }
}
