package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.env.Env;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.security.LogPayloads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The sys catalog's Raft group on this master's RaftServer: writes go through Ratis on the
 * leader and complete once applied; reads see the applied state. Leadership questions
 * (am I leader, who is) are answered from the group's division.
 */
public final class SysCatalog {
  /**
   * The catalog group's id. A constant is enough while a cluster has one master group per
   * process; multi-master clusters agree on it the same way, so it never needs to be stored.
   */
  public static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.fromString("6e79616c-612d-7379-732d-636174616c6f"));
  private static final long WRITE_TIMEOUT_MS = 15_000;

  private final SysCatalogStateMachine stateMachine;
  /** Identifies this master's writes to Ratis' retry cache; call ids are unique per process. */
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private volatile RaftServer server;

  /**
   * A catalog whose snapshots go through {@code env} (sensitive) and whose log entries are
   * sealed by {@code payloads} (a pass-through when the master does not encrypt).
   */
  public SysCatalog(Env env, LogPayloads payloads) {
    this.stateMachine = new SysCatalogStateMachine(env, payloads);
  }

  /** The registry handing Ratis this catalog's state machine. */
  public StateMachine.Registry registry() {
    return gid -> {
      if (!gid.equals(GROUP_ID)) {
        throw new IllegalArgumentException("unknown Raft group " + gid + " on a master");
      }
      return stateMachine;
    };
  }

  /** FORMAT on the first start (no group storage yet), RECOVER after. */
  public static RaftStorage.StartupOption startupOption(Path raftDir) {
    return Files.isDirectory(raftDir.resolve(GROUP_ID.getUuid().toString()))
        ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT;
  }

  /** The initial group: the given masters (just this one for a single-master cluster). */
  public static RaftGroup initialGroup(List<RaftPeer> masters) {
    return RaftGroup.valueOf(GROUP_ID, masters);
  }

  public static RaftPeer peer(String uuid, HostPort raftAddress, HostPort rpcAddress) {
    return RaftPeer.newBuilder()
        .setId(RaftIds.peerId(uuid))
        .setAddress(raftAddress.toString())
        .setClientAddress(rpcAddress.toString())
        .build();
  }

  public void attach(RaftServer raftServer) {
    this.server = raftServer;
  }

  /** Called (on a Ratis thread) when the group's leader changes. */
  public void setLeaderListener(Runnable r) {
    stateMachine.setLeaderListener(r);
  }

  /**
   * Called (on the apply thread, so it must be quick) with the id of each tablet an applied
   * entry put or deleted.
   */
  public void setTabletListener(Consumer<String> l) {
    stateMachine.setTabletListener(l);
  }

  /** Replicates and applies {@code batch}; completes after this master applied it. */
  public CompletableFuture<Void> write(SysCatalogBatchPB batch) {
    RaftServer s = server;
    if (s == null) {
      return CompletableFuture.failedFuture(
          NyalaException.unavailable("sys catalog is not started yet"));
    }
    return RaftCalls.write(s, GROUP_ID, clientId, callIds.incrementAndGet(),
            UnsafeByteOperations.unsafeWrap(batch.toByteArray()))
        .orTimeout(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .handle((r, t) -> {
          if (t != null) {
            throw translate(t);
          }
          return null;
        });
  }

  /** As {@link #write} but waits. */
  public void writeSync(SysCatalogBatchPB batch) {
    try {
      write(batch).join();
    } catch (RuntimeException e) {
      throw NyalaException.from(e);
    }
  }

  private NyalaException translate(Throwable t) {
    NyalaException e = RaftCalls.translate(t, GROUP_ID);
    if (e.code() == io.nyala.common.StatusCode.NOT_LEADER) {
      // RaftCalls names a tablet; the catalog's callers want the master's view.
      return notLeader();
    }
    return e;
  }

  /** Each table's locations version, readable without the catalog lock. */
  public LocationsVersions locationsVersions() {
    return stateMachine.versions();
  }

  /** Bumps, under the catalog lock, the locations version of the tablet's table. */
  public void bumpLocationsOfTablet(String tabletId) {
    stateMachine.read(s -> {
      s.bumpLocationsOfTablet(tabletId);
      return null;
    });
  }

  /**
   * The cluster key versions of the catalog entries a restart of this master would replay
   * (applied after its latest snapshot), oldest first (docs/encryption.md).
   */
  public List<Integer> logKeyVersions() {
    return stateMachine.logKeyVersions();
  }

  /** Whether an entry under {@code version} was applied after all under older versions. */
  public boolean appliedPastOlderKeys(int version) {
    return stateMachine.appliedPast(version);
  }

  public <T> T read(Function<CatalogState, T> reader) {
    return stateMachine.read(reader);
  }

  private RaftServer.Division division() {
    RaftServer s = server;
    if (s == null) {
      return null;
    }
    try {
      return s.getDivision(GROUP_ID);
    } catch (IOException e) {
      return null;
    }
  }

  public boolean isLeader() {
    RaftServer.Division d = division();
    return d != null && d.getInfo().isLeader();
  }

  /** The current term if this master is the group's leader, else -1. */
  public long leaderTerm() {
    RaftServer.Division d = division();
    if (d == null || !d.getInfo().isLeader()) {
      return -1;
    }
    return d.getInfo().getCurrentTerm();
  }

  /**
   * On the leader, how many other members have matched none of its entries yet (a member whose
   * log is empty cannot help elect); 0 elsewhere.
   */
  public int followersWithNothingMatched() {
    RaftServer.Division d = division();
    if (d == null || !d.getInfo().isLeader()) {
      return 0;
    }
    int n = 0;
    for (long match : d.getInfo().getFollowerMatchIndices()) {
      if (match < 0) {
        n++;
      }
    }
    return n;
  }

  public RaftRolePB role() {
    return isLeader() ? RaftRolePB.LEADER : RaftRolePB.FOLLOWER;
  }

  /** The current leader's peer (id and addresses), or null if none is known. */
  public RaftPeer leaderPeer() {
    RaftServer.Division d = division();
    if (d == null) {
      return null;
    }
    RaftPeerId leaderId = d.getInfo().getLeaderId();
    return leaderId == null ? null : d.getRaftConf().getPeer(leaderId);
  }

  /** The masters in the group's current configuration. */
  public Collection<RaftPeer> peers() {
    RaftServer.Division d = division();
    return d == null ? List.of() : d.getRaftConf().getCurrentPeers();
  }

  /** The error a non-leader answers: NOT_LEADER with the leader's uuid and RPC address. */
  public NyalaException notLeader() {
    RaftPeer leader = leaderPeer();
    if (leader == null) {
      return NyalaException.notLeader("this master is not the leader and knows no leader yet",
          "", null);
    }
    return NyalaException.notLeader("this master is not the leader; the leader is "
        + leader.getId(), leader.getId().toString(), RaftPeers.rpcAddress(leader));
  }
}
