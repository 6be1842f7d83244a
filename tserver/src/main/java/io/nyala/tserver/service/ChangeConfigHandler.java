package io.nyala.tserver.service;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.tserver.heartbeat.ClusterIdGuard;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ChangeConfig RPC on a tablet's leader (docs/architecture.md, "Membership"): ADD_PEER,
 * REMOVE_PEER or REPLACE_PEER as one COMPARE_AND_SET {@code setConfiguration}, answered once the
 * new configuration has committed. A removed replica is then sent a DeleteTablet (best effort: a
 * dead one is left to the master), so its group goes only after the configuration without it
 * committed and it cannot disturb the remaining members.
 */
final class ChangeConfigHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeConfigHandler.class);
  /** How long a change may take to commit when the request does not say. */
  private static final long DEFAULT_TIMEOUT_MS = 30_000;
  private static final long DELETE_TIMEOUT_MS = 10_000;

  private final TabletManager tablets;
  private final Supplier<RaftServer> raft;
  private final Channels channels;
  private final ClusterIdGuard clusterGuard;

  ChangeConfigHandler(TabletManager tablets, Supplier<RaftServer> raft, Channels channels,
      ClusterIdGuard clusterGuard) {
    this.tablets = tablets;
    this.raft = raft;
    this.channels = channels;
    this.clusterGuard = clusterGuard;
  }

  CompletableFuture<ChangeConfigResponsePB> change(ChangeConfigRequestPB req) {
    TabletReplica replica = tablets.use(req.getTabletId(), CallerDeadline.nanos());
    return replica.serve(() -> change(replica, req));
  }

  private CompletableFuture<ChangeConfigResponsePB> change(TabletReplica replica,
      ChangeConfigRequestPB req) {
    RaftServer server = raft.get();
    replica.checkLeader(server);
    RaftServer.Division d = replica.division(server);
    if (!d.getRaftConf().getPreviousPeers().isEmpty()) {
      throw NyalaException.unavailable("tablet %s: a configuration change is in progress; retry",
          req.getTabletId());
    }
    List<RaftPeer> current = List.copyOf(d.getRaftConf().getCurrentPeers());
    checkExpected(req, current);
    List<RaftPeer> next = nextPeers(req, current, server);
    RaftPeer removed = req.getType() == ChangeConfigTypePB.ADD_PEER
        ? null : find(current, req.getRemoveUuid());
    long timeout = req.getTimeoutMs() > 0 ? req.getTimeoutMs() : DEFAULT_TIMEOUT_MS;
    if (req.getType() != ChangeConfigTypePB.REMOVE_PEER) {
      snapshotForNewPeer(server, replica, timeout);
    }
    LOG.info("tablet {}: changing configuration {} -> {} ({})", req.getTabletId(),
        uuids(current), uuids(next), req.getType());
    return RaftCalls.setConfiguration(server, replica.groupId(), current, next)
        .orTimeout(timeout, TimeUnit.MILLISECONDS)
        .exceptionally(t -> {
          if (rootCause(t) instanceof TimeoutException) {
            throw NyalaException.timedOut("tablet %s: configuration %s did not commit within "
                + "%d ms", req.getTabletId(), uuids(next), timeout);
          }
          throw RaftCalls.translate(t, replica.groupId());
        })
        .thenApply(v -> {
          if (removed != null) {
            deleteRemovedReplica(req.getTabletId(), removed,
                d.getRaftConf().getLogEntryIndex());
          }
          ChangeConfigResponsePB.Builder b = ChangeConfigResponsePB.newBuilder();
          for (RaftPeer p : d.getRaftConf().getCurrentPeers()) {
            b.addPeers(RaftPeers.fromRatis(p));
          }
          return b.build();
        });
  }

  /**
   * A fresh image for the joining peer to copy (new replicas are built by tablet copy, see
   * docs/architecture.md, "Tablet copy"): a flush, so the durable index the image is taken at is
   * current; replaying the log from its start would read writes made before an alter against the
   * schema the new replica was created with. Best effort: without an image the peer replays the
   * log.
   */
  private static void snapshotForNewPeer(RaftServer server, TabletReplica replica, long timeout) {
    try {
      replica.flushAndSnapshot(server, timeout);
    } catch (RuntimeException e) {
      LOG.warn("tablet {}: no snapshot for the new peer to copy: {}", replica.tabletId(),
          e.getMessage());
    }
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }

  private static void checkExpected(ChangeConfigRequestPB req, List<RaftPeer> current) {
    if (req.getExpectedPeerUuidsCount() == 0) {
      return;
    }
    List<String> have = uuids(current);
    List<String> expected = req.getExpectedPeerUuidsList();
    if (!(have.containsAll(expected) && expected.containsAll(have)
        && have.size() == expected.size())) {
      throw new NyalaException(StatusCode.ILLEGAL_STATE, String.format(
          "tablet %s: expected configuration %s but it holds %s",
          req.getTabletId(), expected, have));
    }
  }

  private static List<RaftPeer> nextPeers(ChangeConfigRequestPB req, List<RaftPeer> current,
      RaftServer server) {
    List<RaftPeer> next = new ArrayList<>(current);
    switch (req.getType()) {
      case ADD_PEER -> next.add(newPeer(req, current));
      case REMOVE_PEER -> next.remove(removable(req, current, server));
      case REPLACE_PEER -> {
        RaftPeer gone = removable(req, current, server);
        RaftPeer added = newPeer(req, current);
        next.set(next.indexOf(gone), added);
      }
      default -> throw NyalaException.invalidArgument(
          "tablet %s: unknown configuration change type %s", req.getTabletId(), req.getType());
    }
    if (next.isEmpty()) {
      throw NyalaException.invalidArgument("tablet %s: cannot remove its last replica",
          req.getTabletId());
    }
    return next;
  }

  private static RaftPeer newPeer(ChangeConfigRequestPB req, List<RaftPeer> current) {
    RaftPeerPB p = req.getNewPeer();
    if (p.getUuid().isEmpty() || !p.hasRaftAddress() || !p.hasRpcAddress()) {
      throw NyalaException.invalidArgument("tablet %s: new peer needs a uuid, a Raft address "
          + "and an RPC address, got uuid '%s'", req.getTabletId(), p.getUuid());
    }
    if (find(current, p.getUuid()) != null) {
      throw NyalaException.alreadyPresent("tablet %s: tablet server %s is already in the "
          + "configuration %s", req.getTabletId(), p.getUuid(), uuids(current));
    }
    return RaftPeers.toRatis(p);
  }

  private static RaftPeer removable(ChangeConfigRequestPB req, List<RaftPeer> current,
      RaftServer server) {
    RaftPeer gone = find(current, req.getRemoveUuid());
    if (gone == null) {
      throw NyalaException.notFound("tablet %s: tablet server '%s' is not in the configuration "
          + "%s", req.getTabletId(), req.getRemoveUuid(), uuids(current));
    }
    if (gone.getId().equals(server.getId())) {
      throw NyalaException.illegalState("tablet %s: cannot remove the leader %s; transfer "
          + "leadership first", req.getTabletId(), req.getRemoveUuid());
    }
    return gone;
  }

  private static RaftPeer find(Collection<RaftPeer> peers, String uuid) {
    if (uuid.isEmpty()) {
      return null;
    }
    return peers.stream().filter(p -> p.getId().equals(RaftIds.peerId(uuid))).findFirst()
        .orElse(null);
  }

  private static List<String> uuids(Collection<RaftPeer> peers) {
    return peers.stream().map(p -> p.getId().toString()).toList();
  }

  /**
   * Best effort, off the caller's path: the configuration without the peer has committed at
   * {@code configIndex}, which the delete carries as compare-and-set (docs/data-safety.md).
   */
  private void deleteRemovedReplica(String tabletId, RaftPeer removed, long configIndex) {
    HostPort addr = RaftPeers.rpcAddress(removed);
    if (addr == null) {
      LOG.warn("tablet {}: removed replica {} has no RPC address; not deleting it", tabletId,
          removed.getId());
      return;
    }
    CompletableFuture.runAsync(() -> {
      try {
        DeleteTabletResponsePB r = TabletServerAdminServiceGrpc.newBlockingStub(channels.get(addr))
            .withDeadlineAfter(DELETE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .deleteTablet(DeleteTabletRequestPB.newBuilder().setTabletId(tabletId)
                .setClusterId(clusterGuard.accepted()).setCasConfigIndex(configIndex)
                .setReason("removed from the Raft configuration at index " + configIndex)
                .build());
        if (NyalaException.isError(r.getError())) {
          LOG.warn("tablet {}: removed replica on {} ({}) not deleted: {}", tabletId,
              removed.getId(), addr, r.getError().getMessage());
        } else {
          LOG.info("tablet {}: deleted removed replica on {} ({})", tabletId, removed.getId(),
              addr);
        }
      } catch (RuntimeException e) {
        LOG.warn("tablet {}: cannot reach removed replica on {} ({}): {}", tabletId,
            removed.getId(), addr, e.getMessage());
      }
    });
  }
}
