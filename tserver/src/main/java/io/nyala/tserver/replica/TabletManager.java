package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.tserver.consensus.TabletCopier;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.HistoryRetention;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.StateMachine;

/**
 * The tablet replicas of this server and their lifecycle (docs/architecture.md, "Replica
 * lifecycle"). Invariant: a replica's metadata is on disk before its Raft group exists, and its
 * group is gone before its metadata is deleted, so a crash at any point leaves something
 * {@link #load} and {@link #start} can finish.
 *
 * <p>A facade: it takes one lock and hands the work to collaborators with one job each —
 * {@link TabletMetadataFiles} (each tablet's metadata file), {@link RaftGroups} (the groups on
 * the server's RaftServer and their dirs), {@link StartupRecovery} and {@link OrphanCleanup}
 * (a start), {@link ReplicaCreator}, {@link TabletDeleter} and {@link StateMachineEvents}.
 * Create and delete are serialised by this object's monitor (they are rare); lookups are
 * lock-free.
 */
public final class TabletManager {
  /** Next to the Raft dir: group dirs kept out of Ratis' sight (see {@link OrphanCleanup}). */
  public static final String ORPHANED_RAFT_DIR = "raft-orphaned";
  /** Next to the Raft dir: group dirs of hibernated replicas (docs/dense-nodes.md). */
  public static final String HIBERNATED_RAFT_DIR = "raft-hibernated";

  private final HostedReplicas replicas = new HostedReplicas();
  private final TabletStateMachine.Listener listener;
  private final TabletMetadataFiles metadata;
  private final RaftGroups groups;
  private final OrphanCleanup orphans;
  private final StateMachineRegistry registry;
  private final StartupRecovery recovery;
  private final ReplicaCreator creator;
  private final TabletDeleter deleter;
  private final StateMachineEvents events;
  /** Opens a hibernated replica's group again (set by the server; see {@link #use}). */
  private volatile Consumer<TabletReplica> waker = r -> {
    throw NyalaException.illegalState("tablet %s is hibernated and this server cannot wake it",
        r.tabletId());
  };

  /**
   * {@code env} is the server's door for sensitive files; {@code keys} and {@code serverKey} are
   * null unless the server encrypts (then tablet keys arrive wrapped by the cluster key and are
   * kept wrapped by the server key).
   */
  public TabletManager(Path metaDir, Path raftDir, String serverUuid,
      TabletStateMachine.Listener listener, Env env, KeyProvider keys, KeyMaterial serverKey,
      BlockManager blocks, Path superblockDir) {
    this.listener = listener;
    TabletKeys tabletKeys = new TabletKeys(keys, serverKey);
    ReplicaFactory factory = new ReplicaFactory(listener, env, tabletKeys, blocks, superblockDir);
    this.metadata = new TabletMetadataFiles(metaDir, env);
    this.groups = new RaftGroups(raftDir);
    this.orphans = new OrphanCleanup(replicas, env, blocks, metaDir, superblockDir, raftDir);
    this.registry = new StateMachineRegistry(replicas, orphans);
    this.deleter = new TabletDeleter(replicas, metadata, groups, factory, env, blocks, listener);
    this.recovery = new StartupRecovery(replicas, metadata, factory, groups, deleter, orphans);
    this.creator = new ReplicaCreator(serverUuid, replicas, metadata, tabletKeys, factory,
        groups, listener);
    this.events = new StateMachineEvents(replicas, metadata, groups, listener);
  }

  /** Step 1 of a start, before Ratis exists (see {@link StartupRecovery}). */
  public void load() {
    recovery.load();
  }

  /** {@code --orphan_block_gc_allow_mass_delete}; call before {@link #load}. */
  public void allowMassOrphanGc(boolean allow) {
    orphans.allowMassDelete(allow);
  }

  /** How many orphaned blocks this start kept because deleting them looked unsafe. */
  public int orphanBlocksKeptAtStart() {
    return orphans.blocksKept();
  }

  /** How many orphaned blocks this start deleted (a crash mid-flush leaves some). */
  public int orphanBlocksDeletedAtStart() {
    return orphans.blocksDeleted();
  }

  /** Orphan group directories Ratis would otherwise open (no metadata for them). */
  public void removeOrphanGroupDirs() {
    orphans.removeOrphanGroupDirs();
  }

  /** {@code --tablet_history_max_age_sec}; call before Ratis opens any group. */
  public void setHistoryRetention(HistoryRetention h) {
    registry.setHistoryRetention(h);
  }

  /** How long stores keep old row versions ({@code --tablet_history_max_age_sec}). */
  HistoryRetention historyRetention() {
    return registry.historyRetention();
  }

  /** UNSAFE, tests only ({@code --fault_tablet_open_delay_ms}); call before Ratis starts. */
  public void setFaultOpenDelayMs(long ms) {
    registry.setFaultOpenDelayMs(ms);
  }

  /** Sets how replicas pull images (tablet copy); call before Ratis opens any group. */
  public void setCopier(TabletCopier c) {
    registry.setCopier(c);
  }

  /** Sets how a hibernated replica is woken (the server's hibernation service). */
  public void setWaker(Consumer<TabletReplica> waker) {
    this.waker = waker;
  }

  /** Maps a group Ratis opens to its tablet's state machine. */
  public StateMachine.Registry registry() {
    return registry;
  }

  /** Step 2, after Ratis started: drops orphan groups, adds groups a crash left un-added. */
  public void start(RaftServer server) {
    recovery.start(server);
  }

  /**
   * The replica of {@code tabletId}, let in for a request that needs its Raft group: a
   * hibernated replica is woken first (concurrent callers share one wake), and a hibernation
   * in progress is waited out, both within {@code deadlineNanos} (System.nanoTime). The caller
   * must call {@link TabletReplica#exit} when the request is done.
   */
  public TabletReplica use(String tabletId, long deadlineNanos) {
    TabletReplica r = get(tabletId);
    if (r.enter(deadlineNanos, waker)) {
      groups.awaitLeader(r, deadlineNanos);
    }
    return r;
  }

  /** The replica of {@code tabletId}, or NOT_FOUND. */
  public TabletReplica get(String tabletId) {
    return replicas.get(tabletId);
  }

  /** Every replica hosted here (a copy). */
  public Collection<TabletReplica> replicas() {
    return replicas.all();
  }

  public int count() {
    return replicas.count();
  }

  /**
   * Creates a replica: metadata, then the Raft group. Idempotent for an existing id. A joining
   * replica (re-replication) gets a group with an empty peer list, which the leader's
   * ChangeConfig then adds; its request need not list this server.
   *
   * <p>Returns once the metadata is durable and the group's add is with Ratis (the replica is
   * OPENING, and reported); the future completes when the replica opened, or exceptionally if
   * Ratis refused the group (the replica is then FAILED). Only the first part holds the lock
   * that serialises creates and deletes (see {@link ReplicaCreator}).
   */
  public CompletableFuture<Void> createTablet(CreateTabletRequestPB req) {
    synchronized (this) {
      return creator.create(req);
    }
  }

  /** Deletes a replica, crash-safely (see {@link TabletDeleter}); returns each step's time. */
  public synchronized DeleteTimings deleteTablet(String tabletId, String reason) {
    return deleter.delete(tabletId, reason);
  }

  /** An applied alter installed {@code schema}: persists it (see {@link StateMachineEvents}). */
  public void schemaAltered(String tabletId, Schema schema, String newTableName) {
    events.schemaAltered(tabletId, schema, newTableName);
  }

  /** A replica's data is damaged: FAILED, out of Ratis (see {@link StateMachineEvents}). */
  public void replicaFailed(String tabletId, NyalaException why) {
    events.failed(tabletId, why);
  }

  /** A replica's division closed its state machine (see {@link StateMachineEvents}). */
  public void replicaClosed(String tabletId, RaftGroupMemberId member) {
    events.closed(tabletId, member);
  }

  /** For hibernation and healing. */
  RaftGroups groups() {
    return groups;
  }

  /** For hibernation. */
  TabletMetadataFiles metadataFiles() {
    return metadata;
  }

  /** A replica's state changed in a way the master should hear about soon. */
  void reportChanged(String tabletId) {
    listener.leaderChanged(tabletId);
  }
}
