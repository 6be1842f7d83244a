package io.nyala.tserver.replica;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.tserver.replica.PeerChannel.Peer;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes hibernated replicas (docs/dense-nodes.md, "Wake"): for a request that needs the group
 * (through {@link TabletManager#use}) or for a peer that woke (the WakeReplica RPC). A wake
 * clears the hibernated state from the metadata, moves the group dir back into Ratis' storage
 * dir and adds the group again, recovered from its storage; the peers are asked to do the same
 * so that the group can elect. Starts on the thread of the request or RPC that needs it; the
 * group is added on Ratis' side, and that thread (like any other) waits out OPENING.
 */
final class ReplicaWaker {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaWaker.class);

  private final TabletManager tablets;
  private final String selfUuid;
  private final PeerChannel channel;
  private final AtomicLong wakes = new AtomicLong();
  /** Told each wake's duration in ms (the server's histogram). */
  private volatile LongConsumer wakeLatencyMs = ms -> { };

  ReplicaWaker(TabletManager tablets, String selfUuid, PeerChannel channel) {
    this.tablets = tablets;
    this.selfUuid = selfUuid;
    this.channel = channel;
  }

  /**
   * Opens a hibernated replica's group again and asks its peers to do the same (first, so that
   * they open meanwhile); concurrent callers wait for the first (see {@link TabletManager#use}).
   * Returns once the group's add is with Ratis (the replica is OPENING until it opened). A
   * replica that cannot be opened goes FAILED.
   */
  void wake(TabletReplica r) {
    wake(r, true);
  }

  /** {@code askPeers}: false when a peer asked (it asked the others too). */
  private void wake(TabletReplica r, boolean askPeers) {
    if (!r.claimWake()) {
      return;
    }
    long start = System.nanoTime();
    TabletMetadataPB m = r.metadata();
    HibernatedStatePB h = m.getHibernated();
    // Peers open while this one does: the group can elect as soon as a majority is up.
    if (askPeers) {
      wakePeers(r, h);
    }
    RaftGroups groups = tablets.groups();
    try {
      synchronized (r) {
        tablets.metadataFiles().persist(r, m.toBuilder().clearHibernated().build());
      }
      if (Files.isDirectory(groups.coldGroupDir(r.groupId()))) {
        RaftGroups.moveGroupDir(groups.coldGroupDir(r.groupId()), groups.groupDir(r.groupId()));
      }
    } catch (IOException | RuntimeException e) {
      throw failed(r, e);
    }
    // Not waited for here: the callers wait out OPENING within their own deadlines, and an add
    // Ratis has queued still happens after a caller gave up (docs/dense-nodes.md, "Wake").
    groups.addAsync(r, false, h.getPeersList()).whenComplete((v, t) -> {
      if (t != null) {
        LOG.warn("tablet {}: cannot wake its Raft group: {}", r.tabletId(),
            failed(r, t).getMessage());
      } else {
        // Counted before the replica goes RUNNING, so that whoever sees it awake sees the count.
        wakes.incrementAndGet();
        wakeLatencyMs.accept((System.nanoTime() - start) / 1_000_000);
        r.openedOrFailed();
        LOG.debug("tablet {}: woken", r.tabletId());
      }
      tablets.reportChanged(r.tabletId());
    });
  }

  /** Marks {@code r} FAILED for a wake that could not open its group; returns the cause. */
  private static NyalaException failed(TabletReplica r, Throwable e) {
    NyalaException ne = NyalaException.from(e);
    r.markFailed(new NyalaException(ne.code(), "tablet " + r.tabletId()
        + ": cannot wake its Raft group: " + ne.detail(), e));
    return ne;
  }

  /** Asks every peer in {@code h}'s configuration but this server to wake; does not wait. */
  private void wakePeers(TabletReplica r, HibernatedStatePB h) {
    WakeReplicaRequestPB req = WakeReplicaRequestPB.newBuilder().setTabletId(r.tabletId())
        .setRequestorUuid(selfUuid).build();
    for (RaftPeerPB p : h.getPeersList()) {
      if (!p.getUuid().equals(selfUuid) && p.hasRpcAddress()) {
        channel.wake(new Peer(p.getUuid(), HostPort.fromPb(p.getRpcAddress())),
            req, ReplicaHibernator.PEER_TIMEOUT_MS);
      }
    }
  }

  /** The WakeReplica RPC: wakes the replica if it is cold; an awake one is left alone. */
  public void wakeRequested(String tabletId) {
    TabletReplica r = tablets.get(tabletId);
    if (r.state() == ReplicaState.HIBERNATED) {
      wake(r, false);
    }
  }

  long wakes() {
    return wakes.get();
  }

  void onWake(LongConsumer sink) {
    this.wakeLatencyMs = sink;
  }
}
