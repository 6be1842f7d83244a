package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.SealedEntries;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.LogPayloads;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.TabletStore;
import io.nyala.tserver.tablet.image.TabletImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tablet replica's Ratis state machine. Each log entry is a {@link TabletOpPB}; applying a
 * write tags its rows with the entry's index (the MVCC timestamp) and replies with a
 * {@link WriteResultPB}. The store flushes in the background; a Ratis "snapshot" is just the
 * store's last durable flush (term and index, no files), so taking one does no I/O and Ratis may
 * purge the log up to it. After each flush the state machine asks Ratis to take one.
 *
 * <p>A thin adapter from Ratis to parts with one job each: {@link EntryApplier} (apply),
 * {@link SnapshotPoint} (snapshots and copy images served), {@link CopyInstalls} (copies into
 * this replica), {@link AppliedIndexWaiters}; the store is opened through a
 * {@link TabletStoreOpener}.
 */
public final class TabletStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(TabletStateMachine.class);

  /** What the state machine reports to its owner; called on Ratis threads, must not block. */
  public interface Listener {
    void leaderChanged(String tabletId);

    void rowsApplied(String tabletId, int rows);

    /**
     * An ALTER_SCHEMA entry was applied at {@code index} and changed the store's schema: the
     * owner persists it (and the new table name, if not empty) in the tablet's metadata.
     */
    default void schemaAltered(String tabletId, Schema schema, String newTableName, long index) {}

    /** The division {@code member} closed this state machine; its Raft log closes next. */
    default void stateMachineClosed(String tabletId, RaftGroupMemberId member) {}

    /**
     * The replica's data is damaged ({@code why} names tablet, file and cause): the owner marks
     * it FAILED and stops its group. Called on any thread, possibly Ratis's: must not block.
     */
    default void dataDamaged(String tabletId, NyalaException why) {}
  }

  private final String tabletId;
  private final Listener listener;
  private final TabletStoreOpener opener;
  private volatile RaftServer raftServer;
  /** Seals payloads on the leader, opens them on every replica. */
  private final LogPayloads payloads;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  /** Opened in initialize, reopened by reinitialize (after a tablet copy). */
  private volatile TabletStore store;
  private volatile boolean initialized;
  /** How long the store keeps old row versions (docs/data-safety.md, "Scans"). */
  private volatile HistoryRetention history = HistoryRetention.NONE;
  /** Why the store could not be opened (the replica is FAILED), or null. */
  private volatile NyalaException openFailure;
  private final EntryApplier applier;
  private final SnapshotPoint snapshots;
  private final CopyInstalls copies;
  private final AppliedIndexWaiters waiters = new AppliedIndexWaiters();

  /** Its store {@code opener} opens on initialize; it records results in {@code applied}. */
  public TabletStateMachine(String tabletId, Listener listener, LogPayloads payloads,
      TabletStoreOpener opener, AppliedWrites applied) {
    this.tabletId = tabletId;
    this.listener = listener;
    this.payloads = payloads;
    this.opener = opener;
    this.applier = new EntryApplier(tabletId, payloads, listener, applied);
    this.snapshots = new SnapshotPoint(tabletId, opener);
    this.copies = new CopyInstalls(tabletId, this::newImageInstaller);
  }

  /** What seals and opens this replica's entries (for tools that read its Raft log back). */
  public LogPayloads payloads() {
    return payloads;
  }

  /** The store; null until Ratis initialized the state machine or if it could not open. */
  public TabletStore store() {
    return store;
  }

  public boolean isInitialized() {
    return initialized;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId gid, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, gid, raftStorage);
    this.raftServer = server;
    storage.init(raftStorage);
    if (!openStoreOrFail()) {
      // Ratis must still start (one damaged tablet never stops the server); the owner removes
      // this group once Ratis runs, keeping its files for the operator.
      return;
    }
    initialized = true;
    markRunning();
  }

  /**
   * After a tablet copy installed new durable state (Ratis paused this state machine first):
   * opens the store from it; the old store lets go of its blocks once no reader holds them.
   */
  @Override
  public void reinitialize() throws IOException {
    if (!openStoreOrFail()) {
      return;
    }
    markRunning();
  }

  /**
   * Opens the store, or reports the replica FAILED when its durable state is damaged
   * (docs/data-safety.md, "Damage is contained"); returns whether it opened.
   */
  private boolean openStoreOrFail() {
    try {
      openStore();
      return true;
    } catch (RuntimeException e) {
      NyalaException ne = NyalaException.from(e);
      NyalaException why = new NyalaException(ne.code(), String.format(
          "tablet %s: cannot open its data (%s): %s", tabletId, opener.source(), ne.detail()), e);
      LOG.error("{}; the replica is FAILED, the server keeps serving its other tablets",
          why.detail());
      store = null;
      openFailure = why;
      listener.dataDamaged(tabletId, why);
      return false;
    }
  }

  /** Why this replica's store could not be opened, or null. */
  public NyalaException openFailure() {
    return openFailure;
  }

  /** Opens the store at its durable state; Ratis replays the log after that index. */
  private void openStore() {
    TabletStore s = opener.open(history, why -> listener.dataDamaged(tabletId, why));
    s.onFlushed(this::requestSnapshot);
    store = s;
    if (s.durableIndex() > 0) {
      TermIndex durable = TermIndex.valueOf(s.durableTerm(), s.durableIndex());
      snapshots.opened(durable);
      setLastAppliedTermIndex(durable);
      waiters.signal(s.durableIndex());
    }
  }

  /** After a flush: lets Ratis record the flushed index as its snapshot and purge the log. */
  private void requestSnapshot() {
    RaftServer server = raftServer;
    if (server == null) {
      return;
    }
    try {
      RaftCalls.snapshotNow(server, getGroupId(), 10_000);
    } catch (RuntimeException e) {
      LOG.debug("tablet {}: snapshot after flush not taken: {}", tabletId, e.getMessage());
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  /** See {@link SnapshotPoint#latest()}. */
  @Override
  public SnapshotInfo getLatestSnapshot() {
    return snapshots.latest();
  }

  /** Runs on the apply thread and does no I/O: see {@link SnapshotPoint#take()}. */
  @Override
  public long takeSnapshot() {
    return snapshots.take();
  }

  /**
   * On the leader, before the entry is appended: seals the payload under this term's key so
   * that the Raft log of every replica holds only ciphertext.
   */
  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    if (!payloads.isSealing()) {
      return super.startTransaction(request);
    }
    return SealedEntries.start(this, payloads, request);
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long index = entry.getIndex();
    NyalaException failed = openFailure;
    if (failed != null) {
      // Until the owner removes this group: nothing is applied, and nothing logged per entry.
      updateLastAppliedTermIndex(entry.getTerm(), index);
      return CompletableFuture.failedFuture(failed);
    }
    try {
      return CompletableFuture.completedFuture(
          Message.valueOf(UnsafeByteOperations.unsafeWrap(applier.apply(store, entry))));
    } catch (Exception e) {
      // Deterministic (same bytes on every replica), so every replica fails the same way.
      LOG.warn("tablet {}: entry {} not applied: {}", tabletId, index, e.getMessage());
      return CompletableFuture.failedFuture(NyalaException.from(e));
    } finally {
      updateLastAppliedTermIndex(entry.getTerm(), index);
    }
  }

  /** The read point of a linearizable read: the last applied index, 8 bytes big-endian. */
  @Override
  public CompletableFuture<Message> query(Message request) {
    ByteBuffer b = ByteBuffer.allocate(8).putLong(appliedIndex());
    b.flip();
    return CompletableFuture.completedFuture(Message.valueOf(UnsafeByteOperations.unsafeWrap(b)));
  }

  public long appliedIndex() {
    TermIndex ti = getLastAppliedTermIndex();
    return ti == null ? 0 : Math.max(0, ti.getIndex());
  }

  /** Completes once the entry at {@code index} has been applied here. */
  public CompletableFuture<Long> whenApplied(long index) {
    return waiters.whenApplied(index, this::appliedIndex);
  }

  @Override
  protected boolean updateLastAppliedTermIndex(long term, long index) {
    TabletStore s = store;
    if (s != null) {
      s.markApplied(term, index);
    }
    boolean updated = super.updateLastAppliedTermIndex(term, index);
    waiters.signal(index);
    return updated;
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    // Configuration and leader no-op entries advance the applied index without a transaction.
    super.notifyTermIndexUpdated(term, index);
    TabletStore s = store;
    if (s != null) {
      s.markApplied(term, index);
    }
    waiters.signal(index);
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
    listener.leaderChanged(tabletId);
  }

  /**
   * Ratis' log worker could not write or roll the Raft log (the WAL): every later append fails,
   * so the replica can neither acknowledge nor vote. It is reported as damaged, hence FAILED and
   * re-replicated (docs/data-safety.md, "Disk faults").
   */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    String at = failedEntry == null ? "while rolling a segment"
        : "at entry " + failedEntry.getIndex();
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause(); // Ratis wraps the file system's error: name that one
    }
    NyalaException why = NyalaException.ioError(String.format(
        "tablet %s: its Raft log (WAL) failed %s, so this replica can no longer log writes: %s",
        tabletId, at, root), cause);
    listener.dataDamaged(tabletId, why);
  }

  /** The replica is being deleted here: see {@link CopyInstalls#cancel}. */
  public void cancelCopies(String why) {
    copies.cancel(why);
  }

  @Override
  public void close() throws IOException {
    cancelCopies("tablet " + tabletId + " closed here");
    super.close();
    TabletStore s = store;
    if (s != null) {
      s.close();
    }
    listener.stateMachineClosed(tabletId, RaftGroupMemberId.valueOf(getId(), getGroupId()));
    waiters.failAll(NyalaException.unavailable("tablet %s is shutting down", tabletId));
  }

  // ---- tablet copy, as source and as destination (docs/architecture.md, "Tablet copy") ----

  /**
   * Ratis pauses the state machine before it reloads it after an installed image (and checks
   * that it is PAUSED); {@link #reinitialize()} makes it RUNNING again.
   */
  @Override
  public void pause() {
    getLifeCycle().transitionIfValid(LifeCycle.State.PAUSING);
    getLifeCycle().transitionIfValid(LifeCycle.State.PAUSED);
  }

  private void markRunning() {
    getLifeCycle().transitionIfValid(LifeCycle.State.STARTING);
    getLifeCycle().transitionIfValid(LifeCycle.State.RUNNING);
  }

  /** Sets how long the store keeps old row versions; call before Ratis initializes it. */
  public void setHistoryRetention(HistoryRetention h) {
    this.history = h;
  }

  /** Sets who pulls images for this replica; without one, install requests fail. */
  public void setCopier(TabletCopier c) {
    copies.setCopier(c);
  }

  /** The durable image a copy session sends: see {@link SnapshotPoint#openCopyImage()}. */
  public TabletImage openCopyImage() {
    return snapshots.openCopyImage();
  }

  /** Whether this replica is being rebuilt from the leader's image right now. */
  public boolean copyInProgress() {
    return copies.inProgress();
  }

  /** Copy images open on this replica (for tests and pages). */
  public int openCopyImages() {
    return snapshots.openImages();
  }

  /**
   * Ratis: the leader's log starts after what this replica has, so it must be rebuilt from the
   * leader's image. Completes with the image's (term, index); Ratis then calls
   * {@link #reinitialize()}, which loads the installed state. Completes with null when the
   * leader has no image but still its whole log (then the log catches this replica up).
   */
  @Override
  public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(RoleInfoProto roleInfo,
      TermIndex firstTermIndexInLog) {
    return copies.installFromLeader(roleInfo, firstTermIndexInLog);
  }

  /**
   * Where a copied image goes (the next {@link #reinitialize()} loads it). Before the durable
   * state is replaced the current store stops flushing (a flush would overwrite it).
   */
  private TabletStoreOpener.Installer newImageInstaller() {
    return opener.newInstaller(() -> {
      TabletStore s = store;
      if (s != null) {
        s.close();
      }
    });
  }
}
