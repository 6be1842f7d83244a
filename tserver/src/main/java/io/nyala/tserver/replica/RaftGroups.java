package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.FirstElectionWindow;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.env.DurableDirs;
import io.nyala.common.fs.AtomicFiles;
import io.nyala.common.proto.RaftPeerPB;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas' Raft groups on this server's {@link RaftServer} (docs/architecture.md,
 * "Replication"): adding, closing and removing divisions in process, and their group dirs, in
 * Ratis' storage dir when awake and next to it when hibernated (docs/dense-nodes.md).
 */
final class RaftGroups {
  private static final Logger LOG = LoggerFactory.getLogger(RaftGroups.class);
  private static final long GROUP_OP_TIMEOUT_MS = 30_000;

  /** Ratis' storage dir: one group dir per awake replica, named by the group's uuid. */
  private final Path raftDir;
  private final AtomicLong callIds = new AtomicLong();
  private final ClientId adminClientId = ClientId.randomId();
  /**
   * Adds Ratis has not finished: a close or remove of the same group waits for its add, because
   * Ratis would run it on a division it has built but not started yet.
   */
  private final ConcurrentMap<RaftGroupId, CompletableFuture<Void>> adding =
      new ConcurrentHashMap<>();
  /** Set once Ratis has started ({@link #attach}); null before. */
  private volatile RaftServer server;

  RaftGroups(Path raftDir) {
    this.raftDir = raftDir;
  }

  Path raftDir() {
    return raftDir;
  }

  void attach(RaftServer server) {
    this.server = server;
  }

  /** The server's Raft server, or null before it started. */
  RaftServer server() {
    return server;
  }

  Path groupDir(RaftGroupId gid) {
    return raftDir.resolve(gid.getUuid().toString());
  }

  /** Where a hibernated replica's group dir is kept. */
  Path coldGroupDir(RaftGroupId gid) {
    return raftDir.resolveSibling(TabletManager.HIBERNATED_RAFT_DIR)
        .resolve(gid.getUuid().toString());
  }

  /** Deletes both places a group dir can be: one Ratis never loaded, or one hibernated. */
  void deleteGroupDirs(RaftGroupId gid) {
    AtomicFiles.deleteTree(groupDir(gid));
    AtomicFiles.deleteTree(coldGroupDir(gid));
  }

  /**
   * Puts a replica's group dir where its metadata says, before Ratis starts: out of Ratis'
   * storage dir when hibernated, in it otherwise. A crash between a hibernation's (or a wake's)
   * metadata write and its move leaves the dir on the wrong side; this finishes the move.
   */
  void placeGroupDir(TabletReplica r) throws IOException {
    if (r.failure() != null) {
      return;
    }
    boolean cold = r.metadata().hasHibernated();
    Path from = cold ? groupDir(r.groupId()) : coldGroupDir(r.groupId());
    Path to = cold ? coldGroupDir(r.groupId()) : groupDir(r.groupId());
    if (Files.isDirectory(from) && !Files.exists(to)) {
      LOG.info("tablet {}: moving its Raft group dir to {} (its metadata says {})",
          r.tabletId(), to, cold ? "hibernated" : "awake");
      moveGroupDir(from, to);
    }
  }

  /** Renames a group dir atomically and durably (both parents synced). */
  static void moveGroupDir(Path from, Path to) throws IOException {
    DurableDirs.create(to.getParent());
    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    DurableDirs.sync(from.getParent());
    DurableDirs.sync(to.getParent());
  }

  /**
   * Adds a replica's group to Ratis: a new one ({@code format}) from its initial peers, or one
   * with storage (a woken replica) recovered from it, term, vote and log included. Waits at most
   * {@link #GROUP_OP_TIMEOUT_MS}; use {@link #addAsync} where the add must not be given up on.
   */
  void add(TabletReplica r, boolean format) {
    await(addAsync(r, format, r.metadata().getInitialPeersList()), r.groupId());
  }

  /**
   * Starts adding a replica's group (see {@link #add(TabletReplica, boolean)}) with
   * {@code known} as the peers to start with; completes when Ratis has added and started it,
   * exceptionally with a {@link NyalaException} if it refused. Ratis adds groups one at a time,
   * so under a burst of creates and wakes this may take long: a caller that stops waiting must
   * not undo what the add relies on (the replica's metadata), because the add still happens.
   */
  CompletableFuture<Void> addAsync(TabletReplica r, boolean format, List<RaftPeerPB> known) {
    List<RaftPeer> peers = new ArrayList<>();
    for (RaftPeerPB p : known) {
      peers.add(RaftPeers.toRatis(p));
    }
    RaftGroup group = RaftGroup.valueOf(r.groupId(), peers);
    RaftServer s = server;
    CompletableFuture<RaftClientReply> reply;
    try {
      reply = s.groupManagementAsync(GroupManagementRequest.newAdd(adminClientId, s.getId(),
          callIds.incrementAndGet(), group, format));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(RaftCalls.translate(e, r.groupId()));
    }
    CompletableFuture<Void> added = reply.handle((rep, t) -> {
      checkReply(rep, t, r.groupId());
      FirstElectionWindow.watch(s, r.groupId());
      return null;
    });
    adding.put(r.groupId(), added);
    added.whenComplete((v, t) -> adding.remove(r.groupId(), added));
    return added;
  }

  /** Closes a replica's group in Ratis and keeps every file of it (hibernation). */
  void close(RaftGroupId gid) {
    call(gid, GroupManagementRequest.newRemove(adminClientId, server.getId(),
        callIds.incrementAndGet(), gid, false, false));
  }

  /** Removes a group from Ratis and deletes its directory. */
  void remove(RaftGroupId gid) {
    call(gid, GroupManagementRequest.newRemove(adminClientId, server.getId(),
        callIds.incrementAndGet(), gid, true, false));
  }

  /** Removes a FAILED replica's group from Ratis, keeping its directory; does not wait. */
  void stopFailed(TabletReplica r) {
    RaftServer s = server;
    afterAdd(r.groupId(), GroupManagementRequest.newRemove(adminClientId, s.getId(),
        callIds.incrementAndGet(), r.groupId(), false, false)).whenComplete((reply, t) -> {
          if (t != null || !reply.isSuccess()) {
            LOG.warn("tablet {}: cannot stop the Raft group of the FAILED replica: {}",
                r.tabletId(), t != null ? t.getMessage() : reply.getException());
          } else {
            LOG.info("tablet {}: Raft group of the FAILED replica stopped; its files are kept "
                + "until the tablet is deleted here", r.tabletId());
          }
        });
  }

  /**
   * After a wake: gives the group until {@code deadlineNanos} to elect, so that the request is
   * served or answered NOT_LEADER with a hint instead of a guess. Polls: elections are rare.
   */
  void awaitLeader(TabletReplica r, long deadlineNanos) {
    try {
      RaftServer.Division d = server.getDivision(r.groupId());
      // A new leader refuses writes until its first entry of the term has committed.
      while ((d.getInfo().getLeaderId() == null
          || (d.getInfo().isLeader() && !d.getInfo().isLeaderReady()))
          && System.nanoTime() < deadlineNanos) {
        Thread.sleep(5);
      }
    } catch (IOException e) {
      // closed again meanwhile: the caller's leader check answers
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sends {@code req} once an add of the same group in flight (if any) has finished. */
  private CompletableFuture<RaftClientReply> afterAdd(RaftGroupId gid,
      GroupManagementRequest req) {
    CompletableFuture<Void> add = adding.get(gid);
    if (add == null) {
      return server.groupManagementAsync(req);
    }
    return add.handle((v, t) -> null).thenCompose(v -> server.groupManagementAsync(req));
  }

  private void call(RaftGroupId gid, GroupManagementRequest req) {
    CompletableFuture<RaftClientReply> reply = afterAdd(gid, req);
    await(reply.handle((rep, t) -> {
      checkReply(rep, t, gid);
      return null;
    }), gid);
  }

  /** Throws the reply's failure as a {@link NyalaException}; returns if it succeeded. */
  private static void checkReply(RaftClientReply reply, Throwable t, RaftGroupId gid) {
    if (t != null) {
      Throwable cause = t instanceof CompletionException && t.getCause() != null
          ? t.getCause() : t;
      throw RaftCalls.translate(cause, gid);
    }
    if (!reply.isSuccess()) {
      NyalaException ne = RaftCalls.translate(reply.getException(), gid);
      throw new NyalaException(ne.code(), ne.detail(), reply.getException());
    }
  }

  private static void await(CompletableFuture<Void> f, RaftGroupId gid) {
    try {
      f.get(GROUP_OP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("interrupted while changing Raft group %s", gid);
    } catch (ExecutionException e) {
      throw NyalaException.from(e.getCause());
    } catch (TimeoutException e) {
      throw NyalaException.timedOut("Raft group %s: Ratis did not answer within %d ms", gid,
          GROUP_OP_TIMEOUT_MS);
    }
  }
}
