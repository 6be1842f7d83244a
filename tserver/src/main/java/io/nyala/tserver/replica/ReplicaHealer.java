package io.nyala.tserver.replica;

import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.tserver.replica.PeerChannel.Peer;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heals lost hibernation messages (docs/dense-nodes.md, "Wake"): an awake replica whose group
 * has had no leader for a while, or a leader with a follower that does not catch up, asks its
 * peers to wake. Waking an awake replica does nothing, so asking too often only costs an RPC;
 * it is asked at most every {@link #RESEND_NANOS} per tablet. Without this, a follower that
 * missed a wake would stay cold, and one that missed a hibernation would keep running elections
 * its cold peers never answer.
 */
final class ReplicaHealer {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaHealer.class);
  /** A group leaderless (or a follower behind) this long asks its peers to wake. */
  static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(3);
  static final long RESEND_NANOS = TimeUnit.SECONDS.toNanos(3);

  private final TabletManager tablets;
  private final PeerChannel channel;
  private final String selfUuid;
  /** Tablet id → since when its group looks stuck (System.nanoTime). */
  private final Map<String, Long> stuckSince = new ConcurrentHashMap<>();
  /** Tablet id → when its peers were last asked to wake. */
  private final Map<String, Long> lastAsked = new ConcurrentHashMap<>();

  ReplicaHealer(TabletManager tablets, PeerChannel channel, String selfUuid) {
    this.tablets = tablets;
    this.channel = channel;
    this.selfUuid = selfUuid;
  }

  /** Looks at one RUNNING replica at {@code now}. */
  void check(TabletReplica r, long now) {
    RaftServer server = tablets.groups().server();
    RaftServer.Division d;
    try {
      d = server == null ? null : server.getDivision(r.groupId());
    } catch (IOException e) {
      d = null;
    }
    if (d == null) {
      forget(r.tabletId());
      return;
    }
    if (!stuck(d)) {
      stuckSince.remove(r.tabletId());
      return;
    }
    long since = stuckSince.computeIfAbsent(r.tabletId(), k -> now);
    Long asked = lastAsked.get(r.tabletId());
    if (now - since < STUCK_NANOS || (asked != null && now - asked < RESEND_NANOS)) {
      return;
    }
    lastAsked.put(r.tabletId(), now);
    WakeReplicaRequestPB req = WakeReplicaRequestPB.newBuilder().setTabletId(r.tabletId())
        .setRequestorUuid(selfUuid).build();
    for (RaftPeer p : d.getRaftConf().getAllPeers()) {
      if (!p.getId().equals(server.getId())) {
        LOG.debug("tablet {}: group stuck; asking {} to wake", r.tabletId(), p.getId());
        channel.wake(new Peer(p.getId().toString(), RaftPeers.rpcAddress(p)), req,
            ReplicaHibernator.PEER_TIMEOUT_MS);
      }
    }
  }

  /** No leader known, or (as leader) a follower behind the commit index. */
  private static boolean stuck(RaftServer.Division d) {
    if (d.getInfo().isLeader()) {
      long commit = d.getRaftLog().getLastCommittedIndex();
      for (long m : GroupQuietness.followerMatchIndices(d)) {
        if (m < commit) {
          return true;
        }
      }
      return false;
    }
    return d.getInfo().getLeaderId() == null;
  }

  void forget(String tabletId) {
    stuckSince.remove(tabletId);
    lastAsked.remove(tabletId);
  }
}
