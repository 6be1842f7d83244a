package io.nyala.master;

import io.nyala.common.NyalaException;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB.TabletServerKeyPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.security.KeyProvider;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.master.catalog.TabletKeyRewrapper;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This master's part in rotating the cluster key (docs/encryption.md, "Rotating the cluster
 * key"). On the leader, {@link #rotate} reloads the key provider and writes a catalog entry
 * under the new version; {@link #tick} then re-wraps the catalog's tablet keys, while heartbeat
 * answers carry the version to the tablet servers. On every master {@link #tick} re-wraps the
 * master's own server key once its provider knows the new version (a follower's does once it
 * applies an entry sealed under it) and snapshots the catalog once the entries a restart would
 * replay include an older version but a newer one was applied after them, so that a restart
 * never needs a version about to be retired.
 */
final class ClusterKeyRotator {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterKeyRotator.class);
  /** Rewrap batches per tick: keeps the ticker's other work going on a big catalog. */
  private static final int BATCHES_PER_TICK = 10;

  private final String uuid;
  private final ServerFs fs;
  /** Null when this master does not encrypt. */
  private final KeyProvider keys;
  private final SysCatalog catalog;
  private final CatalogManager catalogManager;
  private final TSManager tsManager;
  private final TabletKeyRewrapper rewrapper;
  private final BooleanSupplier isLeader;
  /** Takes a catalog snapshot now and returns its index. */
  private final LongSupplier snapshot;

  ClusterKeyRotator(String uuid, ServerFs fs, KeyProvider keys, CatalogManager catalogManager,
      TSManager tsManager, BooleanSupplier isLeader, LongSupplier snapshot) {
    this.uuid = uuid;
    this.fs = fs;
    this.keys = keys;
    this.catalog = catalogManager.catalog();
    this.catalogManager = catalogManager;
    this.tsManager = tsManager;
    this.rewrapper = keys == null ? null : new TabletKeyRewrapper(catalog, keys);
    this.isLeader = isLeader;
    this.snapshot = snapshot;
  }

  /** The version heartbeat answers tell tablet servers; 0 without encryption. */
  int targetVersion() {
    return keys == null ? 0 : keys.currentVersion();
  }

  /**
   * Starts a rotation to {@code newVersion}, which the operator just added to the key file.
   * Refuses (ILLEGAL_STATE) while the previous rotation has not finished, and unless the key
   * file's newest version is {@code newVersion} once reloaded.
   */
  synchronized int rotate(int newVersion) {
    catalogManager.checkLeaderReady();
    if (keys == null) {
      throw NyalaException.illegalState("master %s does not encrypt data at rest: there is no "
          + "cluster key to rotate", uuid);
    }
    if (newVersion < 2) {
      throw NyalaException.invalidArgument("new cluster key version %d: a rotation adds a "
          + "version above 1", newVersion);
    }
    String pending = pending(newVersion - 1);
    if (!pending.isEmpty()) {
      throw NyalaException.illegalState("cannot rotate to cluster key version %d: the rotation "
          + "to version %d is still in progress (%s); let 'nyala cluster rotate-key' finish it "
          + "first", newVersion, newVersion - 1, pending);
    }
    keys.reload();
    int current = keys.currentVersion();
    if (current != newVersion) {
      throw NyalaException.illegalState("cannot rotate to cluster key version %d: after "
          + "reloading its key file master %s holds versions %s, newest %d (another rotation "
          + "added a version, or this master reads another key file)", newVersion, uuid,
          keys.versions(), current);
    }
    // An entry sealed under the new version: followers reload on applying it, and it lets
    // every master's snapshot leave the old version behind.
    catalog.writeSync(SysCatalogBatchPB.getDefaultInstance());
    LOG.info("cluster key rotation to version {} started; {} tablet keys to re-wrap",
        newVersion, rewrapper.keysBehind(newVersion));
    return newVersion;
  }

  /** What is still behind {@code version}, e.g. "tablet servers moved: 2/3"; empty if none. */
  private String pending(int version) {
    List<String> out = new ArrayList<>();
    long behind = rewrapper.keysBehind(version);
    if (behind > 0) {
      out.add(behind + " tablet keys in the catalog under an older version");
    }
    List<TSDescriptor> live = tsManager.live();
    // A tserver reporting 0 does not encrypt: nothing of it to move.
    long moved = live.stream().filter(d -> d.clusterKeyVersion() == 0
        || d.clusterKeyVersion() >= version).count();
    if (moved < live.size()) {
      out.add("tablet servers moved: " + moved + "/" + live.size());
    }
    return String.join(", ", out);
  }

  /** Background work, on every master (see the class comment). */
  void tick() {
    if (keys == null) {
      return;
    }
    int current = keys.currentVersion();
    if (isLeader.getAsBoolean()) {
      rewrapper.sweep(BATCHES_PER_TICK);
    }
    if (fs.serverKeyVersion() != current) {
      fs.rewrapServerKey(keys);
    }
    List<Integer> replayed = catalog.logKeyVersions();
    if (!replayed.isEmpty() && replayed.get(0) < current
        && catalog.appliedPastOlderKeys(current)) {
      long index = snapshot.getAsLong();
      LOG.info("sys catalog snapshot at {} so that a restart replays no entry under a cluster "
          + "key version below {}", index, current);
    }
  }

  /** GetClusterKeyStatus: this master's state; the tservers' and the catalog's if leader. */
  GetClusterKeyStatusResponsePB status() {
    GetClusterKeyStatusResponsePB.Builder b = GetClusterKeyStatusResponsePB.newBuilder()
        .setMasterUuid(uuid).setLeaderMaster(isLeader.getAsBoolean());
    if (keys == null) {
      return b.build();
    }
    b.setCurrentVersion(keys.currentVersion()).addAllProviderVersions(keys.versions())
        .setInstanceKeyVersion(fs.serverKeyVersion())
        .addAllLogKeyVersions(catalog.logKeyVersions());
    if (b.getLeaderMaster()) {
      b.setCatalogKeysBehind(rewrapper.keysBehind(keys.currentVersion()));
      for (TSDescriptor d : tsManager.all()) {
        b.addTabletServers(TabletServerKeyPB.newBuilder().setUuid(d.uuid())
            .setName(d.registration().getName()).setLive(tsManager.isLive(d))
            .setKeyVersion(d.clusterKeyVersion()));
      }
    }
    return b.build();
  }
}
