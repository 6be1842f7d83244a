package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.Env;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.LogPayloads;
import io.nyala.tserver.consensus.AppliedWrites;
import io.nyala.tserver.consensus.BlockStoreOpener;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.consensus.WriteBatcher;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.WriteSchemaCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;

/**
 * One tablet replica hosted here: its persisted metadata, schema and Raft group, the state
 * machine Ratis created for it (absent until Ratis opens the group), and where it is in its
 * lifecycle ({@link ReplicaState}, changed only by {@link #transition}).
 *
 * <p>Requests that need the group (writes, scans, alters, configuration changes, copies) enter
 * through {@link TabletManager#use}, which counts them in {@link #inFlight}: a hibernation
 * round starts only when none is in flight, and none enters while it runs.
 */
public final class TabletReplica {
  /** Replaced when an alter or a delete is persisted; written under this object's monitor. */
  private volatile TabletMetadataPB metadata;
  /** The current schema (after every applied alter); follows {@link #metadata}. */
  private volatile Schema schema;
  private final RaftGroupId groupId;
  private final TabletStateMachine.Listener listener;
  private final Env env;
  /** The tablet's data key (unwrapped with the server key), or null if it is not encrypted. */
  private final KeyMaterial tabletKey;
  private final BlockManager blocks;
  /** The tablet's superblock (rowsets and durable index of its store). */
  private final Path superblockFile;
  /** Set by Ratis (through the registry) when it opens the group. */
  private volatile TabletStateMachine stateMachine;
  /** Opens the store of {@link #stateMachine}; set with it. */
  private volatile BlockStoreOpener storeOpener;
  /** Results of recent writes, kept across hibernation (see {@link AppliedWrites}). */
  private final AppliedWrites appliedWrites = new AppliedWrites();
  /** Groups concurrent writes into entries while this replica leads; made on first write. */
  private volatile WriteBatcher writeBatcher;
  /** Write schemas already checked against {@link #schema()}, for the Write RPC. */
  private final WriteSchemaCache writeSchemas = new WriteSchemaCache();
  /** The store scans of this replica opened while it is cold (see {@link ColdReads}). */
  final ColdStore cold = new ColdStore();
  /**
   * Why the replica is FAILED (damaged on disk: see docs/data-safety.md, "Damage is
   * contained"), or null. Set once; a FAILED replica serves nothing until it is deleted.
   */
  private volatile NyalaException failure;
  /** Guarded by this object's monitor; waiters for a change wait on it. */
  private ReplicaState state;
  /** Requests that entered through {@link TabletManager#use} and not left; guarded by this. */
  private int inFlight;
  /** When a request last entered (System.nanoTime), or when the replica was opened. */
  private volatile long lastActivityNanos = System.nanoTime();
  /** The report last built while HIBERNATED, reused while nothing it was built from changed. */
  volatile ReplicaReports.ColdReport coldReport;

  TabletReplica(TabletMetadataPB metadata, TabletStateMachine.Listener listener, Env env,
      KeyMaterial tabletKey, BlockManager blocks, Path superblockFile) {
    this.env = env;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
    this.tabletKey = tabletKey;
    this.metadata = metadata;
    // A replica whose metadata could not be read has none (see ReplicaFactory#unreadable).
    this.schema = metadata.hasSchema() ? Schema.fromPb(metadata.getSchema()) : null;
    this.groupId = RaftIds.groupId(metadata.getTabletId());
    this.listener = listener;
    this.state = metadata.hasHibernated() ? ReplicaState.HIBERNATED : ReplicaState.OPENING;
    // A cold group replays no log here, which is what records them for an awake one.
    appliedWrites.restore(metadata.getHibernated().getAppliedWritesList(), System.nanoTime());
  }

  /** Where the replica is in its lifecycle. */
  public synchronized ReplicaState state() {
    return state;
  }

  /**
   * Moves to {@code to}, or fails with ILLEGAL_STATE if {@link ReplicaState}'s table does not
   * allow the step; wakes everyone waiting for a change.
   */
  synchronized void transition(ReplicaState to) {
    if (!state.canTransitionTo(to)) {
      throw NyalaException.illegalState("tablet %s: replica cannot go from %s to %s", tabletId(),
          state, to);
    }
    state = to;
    if (to == ReplicaState.RUNNING) {
      lastActivityNanos = System.nanoTime();
    }
    notifyAll();
  }

  /**
   * Lets a request in if the replica is RUNNING (counting it until {@link #exit}); returns the
   * state that kept it out otherwise. Caller holds no lock.
   */
  synchronized ReplicaState tryEnter() {
    if (state != ReplicaState.RUNNING) {
      return state;
    }
    inFlight++;
    lastActivityNanos = System.nanoTime();
    return ReplicaState.RUNNING;
  }

  /** A request that entered has finished (answered or failed). */
  public synchronized void exit() {
    inFlight--;
  }

  /**
   * Runs the asynchronous work of a request that entered through {@link TabletManager#use},
   * and {@link #exit}s when that work is done or fails to start.
   */
  public <T> CompletableFuture<T> serve(Supplier<CompletableFuture<T>> work) {
    CompletableFuture<T> f;
    try {
      f = work.get();
    } catch (RuntimeException e) {
      exit();
      throw e;
    }
    return f.whenComplete((r, t) -> exit());
  }

  /** RUNNING with no request in flight: what a round would find here now. */
  synchronized boolean idleNow() {
    return state == ReplicaState.RUNNING && inFlight == 0;
  }

  /**
   * Starts a hibernation round: RUNNING to HIBERNATING, only while no request is in flight.
   * Returns false (and changes nothing) otherwise.
   */
  synchronized boolean beginHibernation() {
    if (state != ReplicaState.RUNNING || inFlight > 0) {
      return false;
    }
    transition(ReplicaState.HIBERNATING);
    return true;
  }

  /**
   * Claims the wake of a HIBERNATED replica (it goes OPENING); false if it is not hibernated,
   * e.g. because another caller claimed it first (that caller's wake is then waited for).
   */
  synchronized boolean claimWake() {
    if (state != ReplicaState.HIBERNATED) {
      return false;
    }
    transition(ReplicaState.OPENING);
    return true;
  }

  /** Lets a request in, waiting or waking as needed; see {@link RequestAdmission#enter}. */
  boolean enter(long deadlineNanos, Consumer<TabletReplica> waker) {
    return RequestAdmission.enter(this, deadlineNanos, waker);
  }

  /** Waits up to {@code nanos} for the state to change from {@code from}. */
  synchronized void awaitChange(ReplicaState from, long nanos) throws InterruptedException {
    long end = System.nanoTime() + nanos;
    long left = nanos;
    while (state == from && left > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
      left = end - System.nanoTime();
    }
  }

  long lastActivityNanos() {
    return lastActivityNanos;
  }

  /** The results of the writes applied here recently, by client id and sequence number. */
  public AppliedWrites appliedWrites() {
    return appliedWrites;
  }

  /**
   * The replica's write batcher (docs/architecture.md, "Write path"), made with
   * {@code settings} on first use; it outlives the group, as {@link #appliedWrites()} does.
   */
  public WriteBatcher writeBatcher(WriteBatcher.Settings settings) {
    WriteBatcher b = writeBatcher;
    if (b == null) {
      synchronized (this) {
        if (writeBatcher == null) {
          writeBatcher = new WriteBatcher(appliedWrites, settings);
        }
        b = writeBatcher;
      }
    }
    return b;
  }

  /** Forgets the state machine of a group that closed (hibernated): reports must not read it. */
  void groupClosed() {
    stateMachine = null;
  }

  public String tabletId() {
    return metadata.getTabletId();
  }

  public TabletMetadataPB metadata() {
    return metadata;
  }

  /**
   * The current schema: the store's once the replica is open (it moves with applied alters,
   * also on followers before their metadata is written), else the persisted one.
   */
  public Schema schema() {
    checkNotFailed();
    TabletStateMachine sm = stateMachine;
    if (sm != null && sm.isInitialized()) {
      return sm.store().schema();
    }
    return schema;
  }

  public WriteSchemaCache writeSchemas() {
    return writeSchemas;
  }

  public RaftGroupId groupId() {
    return groupId;
  }

  /** Installs metadata already persisted by the caller (which holds this object's monitor). */
  void metadataPersisted(TabletMetadataPB newMetadata) {
    this.metadata = newMetadata;
    this.schema = newMetadata.hasSchema() ? Schema.fromPb(newMetadata.getSchema()) : null;
  }

  /**
   * The schema the Raft log starts from: the store begins with it when no snapshot exists, so
   * entries written before an alter are replayed against the schema they were written to.
   */
  Schema initialSchema() {
    TabletMetadataPB m = metadata;
    return Schema.fromPb(m.hasInitialSchema() ? m.getInitialSchema() : m.getSchema());
  }

  /** An opener of this replica's store; {@code adopt}: one open at its durable state, or null. */
  BlockStoreOpener storeOpener(BlockTabletStore adopt) {
    return new BlockStoreOpener(tabletId(), initialSchema(), env, blocks, superblockFile, adopt);
  }

  /** Called by the state machine registry: a fresh state machine per open of the group. */
  TabletStateMachine newStateMachine() {
    BlockStoreOpener opener = storeOpener(cold.takeForWake());
    TabletStateMachine sm = new TabletStateMachine(tabletId(), listener,
        LogPayloads.sealed(tabletId(), tabletKey), opener, appliedWrites);
    storeOpener = opener;
    stateMachine = sm;
    return sm;
  }

  /** OPENING to RUNNING once the group's state machine opened its store; FAILED otherwise. */
  void openedOrFailed() {
    TabletStateMachine sm = stateMachine;
    if (sm != null && sm.isInitialized()) {
      synchronized (this) {
        if (state == ReplicaState.OPENING) {
          transition(ReplicaState.RUNNING);
        }
      }
    } else if (failure == null) {
      markFailed(sm != null && sm.openFailure() != null ? sm.openFailure()
          : NyalaException.illegalState("tablet %s: its Raft group did not open", tabletId()));
    }
  }

  /**
   * Marks the replica FAILED; returns false if it already was (the first cause is kept) or is
   * being deleted.
   */
  synchronized boolean markFailed(NyalaException e) {
    if (failure != null || !state.canTransitionTo(ReplicaState.FAILED)) {
      return false;
    }
    failure = e;
    transition(ReplicaState.FAILED);
    return true;
  }

  /** Why the replica is FAILED, or null if it is not. */
  public NyalaException failure() {
    return failure;
  }

  /**
   * Refuses requests to a FAILED replica with NOT_LEADER and no hint, which sends clients to
   * another replica with fresh locations (its group is gone here, so it never leads again).
   */
  void checkNotFailed() {
    NyalaException f = failure;
    if (f != null) {
      throw NyalaException.notLeader("tablet " + tabletId() + ": this replica is FAILED ("
          + f.detail() + "); another replica serves it", "", null);
    }
  }

  /** The state machine, or SERVICE_UNAVAILABLE while the replica is still opening. */
  public TabletStateMachine stateMachine() {
    checkNotFailed();
    TabletStateMachine sm = stateMachine;
    if (sm == null || !sm.isInitialized()) {
      throw NyalaException.unavailable("tablet %s is still bootstrapping", tabletId());
    }
    return sm;
  }

  /**
   * Flushes the store (so its durable index is the last applied entry) and asks Ratis for a
   * snapshot, which is that flushed index (held back while copy images are open); returns it.
   * Does I/O: never on an apply thread.
   */
  public long flushAndSnapshot(RaftServer server, long timeoutMs) {
    stateMachine().store().flush();
    return RaftCalls.snapshotNow(server, groupId, timeoutMs);
  }

  public Path superblockFile() {
    return superblockFile;
  }

  /**
   * The state machine's store as the block engine, for the server's maintenance and tools that
   * use more than {@link io.nyala.tserver.tablet.TabletStore}; null while none is open.
   */
  public BlockTabletStore blockStore() {
    BlockStoreOpener o = storeOpener;
    return o == null ? null : o.store();
  }

  /** The live state machine or null (pages and reports must not throw). */
  public TabletStateMachine stateMachineOrNull() {
    return stateMachine;
  }

  public RaftServer.Division division(RaftServer server) {
    try {
      return server.getDivision(groupId);
    } catch (IOException e) {
      throw NyalaException.unavailable("tablet %s has no running Raft group here: %s",
          tabletId(), e.getMessage());
    }
  }

  /** Fails with NOT_LEADER (and the leader's uuid and RPC address if known) unless leader. */
  public void checkLeader(RaftServer server) {
    checkNotFailed();
    ReplicaReports.checkLeader(tabletId(), division(server));
  }

  /** What the master hears about this replica (see {@link ReplicaReports}). */
  public ReportedTabletPB report(RaftServer server) {
    return ReplicaReports.report(this, server);
  }

  /**
   * The index of this replica's latest Raft configuration (committed or not: a compare-and-set
   * against it errs on refusing) and whether it lists {@code selfUuid}; null while the group is
   * not open here. See docs/data-safety.md, "Deletes".
   */
  public ConfigView configView(RaftServer server, String selfUuid) {
    return ReplicaReports.configView(this, server, selfUuid);
  }

  /** See {@link #configView}. */
  public record ConfigView(long index, boolean member) {}

  /** A line of ListTablets and the status page. */
  public ListTabletsResponsePB.StatusPB status(RaftServer server) {
    return ReplicaReports.status(this, server);
  }
}
