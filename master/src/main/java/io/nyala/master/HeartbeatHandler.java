package io.nyala.master;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.CatalogState;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * TSHeartbeat on the leader: (re)register the tserver, apply its tablet report, and tell it
 * whether this leadership still needs its full report.
 */
final class HeartbeatHandler {
  private final String masterUuid;
  private final TSManager tsManager;
  private final CatalogManager catalogManager;
  private final long heartbeatIntervalMs;
  /** Run when a tserver registers or changes its registration (its TSInfo in locations). */
  private final Runnable registrationChanged;
  /** This master's HTTP address, or null while its web server is off or not yet up. */
  private final Supplier<HostPort> httpAddress;
  /** The token signing keys tablet servers verify clients' tokens with. */
  private final Supplier<List<TokenSigningPublicKeyPB>> tokenKeys;
  /** The version tservers should wrap their server key by; 0 without encryption. */
  private volatile IntSupplier clusterKeyVersion = () -> 0;

  HeartbeatHandler(String masterUuid, TSManager tsManager, CatalogManager catalogManager,
      long heartbeatIntervalMs, Runnable registrationChanged, Supplier<HostPort> httpAddress,
      Supplier<List<TokenSigningPublicKeyPB>> tokenKeys) {
    this.tokenKeys = tokenKeys;
    this.registrationChanged = registrationChanged;
    this.httpAddress = httpAddress;
    this.masterUuid = masterUuid;
    this.tsManager = tsManager;
    this.catalogManager = catalogManager;
    this.heartbeatIntervalMs = heartbeatIntervalMs;
  }

  /** Tells every answer the cluster key version tservers should move to (docs/encryption.md). */
  void setClusterKeyVersion(IntSupplier version) {
    this.clusterKeyVersion = version;
  }

  TSHeartbeatResponsePB handle(TSHeartbeatRequestPB req) {
    catalogManager.checkLeaderReady();
    String clusterId = catalogManager.catalog().read(CatalogState::clusterId);
    if (!req.getClusterId().isEmpty() && !req.getClusterId().equals(clusterId)) {
      // A tserver of another cluster (or of this one before its catalog was lost): its report
      // must not touch this catalog, nor this catalog its tablets (docs/data-safety.md).
      return TSHeartbeatResponsePB.newBuilder()
          .setError(NyalaException.illegalState("tablet server %s belongs to cluster %s, this "
              + "master to cluster %s: heartbeat refused", req.getRegistration().getUuid(),
              req.getClusterId(), clusterId).toPb())
          .setMasterUuid(masterUuid)
          .setClusterId(clusterId)
          .build();
    }
    TSDescriptor known = tsManager.get(req.getRegistration().getUuid());
    ServerRegistrationPB before = known == null ? null : known.registration();
    TSDescriptor ts = tsManager.heartbeat(req.getRegistration(), req.getNumLiveTablets(),
        req.getNumDataDirs(), req.getFailedDataDirsList());
    ts.setClusterKeyVersion(req.getClusterKeyVersion());
    if (!ts.registration().equals(before)) {
      registrationChanged.run();
    }
    if (req.hasTabletReport()) {
      catalogManager.processReport(ts, req.getTabletReport());
      if (!req.getTabletReport().getIsIncremental()) {
        tsManager.fullReportReceived(ts);
      }
    }
    TSHeartbeatResponsePB.Builder resp = TSHeartbeatResponsePB.newBuilder()
        .setMasterUuid(masterUuid)
        .setLeaderMaster(true)
        .setNeedsFullTabletReport(tsManager.needsFullReport(ts))
        .setClusterId(clusterId)
        .setHeartbeatIntervalMillis(heartbeatIntervalMs)
        .addAllTokenSigningKeys(tokenKeys.get())
        .setClusterKeyVersion(clusterKeyVersion.getAsInt());
    HostPort http = httpAddress.get();
    if (http != null) {
      resp.setMasterHttpAddress(http.toPb());
    }
    return resp.build();
  }
}
