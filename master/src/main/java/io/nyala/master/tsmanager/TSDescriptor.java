package io.nyala.master.tsmanager;

import io.nyala.common.HostPort;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.master.TSInfoPB;

/**
 * What the master knows about one tablet server. Mutable: every field is guarded by this
 * object's monitor, since heartbeats (RPC threads) write while pages and placement read.
 */
public final class TSDescriptor {
  private final String uuid;
  private ServerRegistrationPB registration;
  private long lastHeartbeatNanos;
  private int numLiveTablets;
  /** The registry epoch of the last full tablet report; a new leadership bumps the epoch. */
  private long fullReportEpoch = -1;

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

  synchronized void touch(long nowNanos) {
    lastHeartbeatNanos = nowNanos;
  }

  synchronized long fullReportEpoch() {
    return fullReportEpoch;
  }

  synchronized void setFullReportEpoch(long epoch) {
    fullReportEpoch = epoch;
  }

  public HostPort rpcAddress() {
    return HostPort.fromPb(registration().getRpcAddress());
  }

  /** The wire form clients see. */
  public TSInfoPB toTsInfo() {
    ServerRegistrationPB r = registration();
    return TSInfoPB.newBuilder()
        .setUuid(uuid)
        .setRpcAddress(r.getRpcAddress())
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
