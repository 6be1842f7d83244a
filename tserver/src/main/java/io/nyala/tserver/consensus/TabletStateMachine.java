package io.nyala.tserver.consensus;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.SealedEntries;
import io.nyala.common.env.Env;
import io.nyala.common.proto.metadata.AlterSchemaOpPB;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.row.RowOperations;
import io.nyala.common.rpc.AliasingMarshaller;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.LogPayloads;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockImage;
import io.nyala.tserver.tablet.BlockImageInstaller;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.RowError;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.tablet.TabletImage;
import io.nyala.tserver.tablet.WriteSchemaCache;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
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
import org.apache.ratis.server.storage.FileInfo;
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
  /** The schema the Raft log starts from: a store with no superblock yet begins with it. */
  private final Schema schema;
  private final Listener listener;
  /** The door for the superblock (sensitive). */
  private final Env env;
  private final BlockManager blocks;
  private final Path superblockFile;
  private volatile RaftServer raftServer;
  /** Seals payloads on the leader, opens them on every replica. */
  private final LogPayloads payloads;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  /** Opened in initialize, reopened by reinitialize (after a tablet copy). */
  private volatile BlockTabletStore store;
  private volatile boolean initialized;
  /** Pulls the leader's image when the log cannot catch this replica up; set by the owner. */
  private volatile TabletCopier copier;
  /** How long the store keeps old row versions (docs/data-safety.md, "Scans"). */
  private volatile HistoryRetention history = HistoryRetention.NONE;
  /** Copy images served from here and still open: snapshots are held back to the lowest. */
  private final ImagePins imagePins = new ImagePins();
  /** What {@link #getLatestSnapshot()} reports; written by open and the apply thread. */
  private volatile TermIndex lastSnapshot;
  /** Index → futures waiting for it to be applied; guarded by itself. */
  private final TreeMap<Long, List<CompletableFuture<Long>>> waiters = new TreeMap<>();
  /** Write schemas already checked against the store's schema, for apply. */
  private final WriteSchemaCache writeSchemas = new WriteSchemaCache();
  /** Why the store could not be opened (the replica is FAILED), or null. */
  private volatile NyalaException openFailure;
  /** Copies into this replica in progress; cancelled when it is deleted or closed. */
  private final Set<BlockImageInstaller> copies = ConcurrentHashMap.newKeySet();
  /** Why copies into this replica are refused from now on, or null. */
  private volatile String copiesCancelled;

  public TabletStateMachine(String tabletId, Schema schema, Listener listener, Env env,
      LogPayloads payloads, BlockManager blocks, Path superblockFile) {
    this.env = env;
    this.blocks = blocks;
    this.superblockFile = superblockFile;
    this.payloads = payloads;
    this.tabletId = tabletId;
    this.schema = schema;
    this.listener = listener;
  }

  /** The store; null until Ratis initialized the state machine. */
  public BlockTabletStore store() {
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
   * After a tablet copy installed a superblock (Ratis paused this state machine first): opens
   * the store from it; the old store lets go of its blocks once no reader holds them.
   */
  @Override
  public void reinitialize() throws IOException {
    BlockTabletStore old = store;
    if (!openStoreOrFail()) {
      return;
    }
    if (old != null) {
      old.retire(new HashSet<>(store.durableState().allBlocks()));
    }
    markRunning();
  }

  /**
   * Opens the store, or reports the replica FAILED when its superblock or blocks are damaged
   * (docs/data-safety.md, "Damage is contained"); returns whether it opened.
   */
  private boolean openStoreOrFail() {
    try {
      openStore();
      return true;
    } catch (RuntimeException e) {
      NyalaException ne = NyalaException.from(e);
      NyalaException why = new NyalaException(ne.code(), String.format(
          "tablet %s: cannot open its data (superblock %s): %s", tabletId, superblockFile,
          ne.detail()), e);
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

  /** Opens the store at its superblock's state; Ratis replays the log after that index. */
  private void openStore() {
    BlockTabletStore s = BlockTabletStore.open(tabletId, schema, env, blocks, superblockFile,
        history);
    s.onFlushed(this::requestSnapshot);
    s.onDamaged(why -> listener.dataDamaged(tabletId, why));
    store = s;
    if (s.durableIndex() > 0) {
      lastSnapshot = TermIndex.valueOf(s.durableTerm(), s.durableIndex());
      setLastAppliedTermIndex(lastSnapshot);
      signalApplied(s.durableIndex());
    }
    LOG.info("tablet {}: opened store at index {} ({} rows, {} on-disk layers)", tabletId,
        s.durableIndex(), s.liveRowCount(), s.diskLayerCount());
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

  /**
   * The snapshot Ratis last took ({@link #takeSnapshot()}), or the flushed state the store was
   * opened at; no files (tablet copy moves blocks). Not simply the durable index: Ratis skips a
   * snapshot request (and so the log purge) when nothing was applied since this one.
   */
  @Override
  public SnapshotInfo getLatestSnapshot() {
    TermIndex ti = lastSnapshot;
    if (ti == null) {
      return null;
    }
    return new SnapshotInfo() {
      @Override
      public TermIndex getTermIndex() {
        return ti;
      }

      @Override
      public List<FileInfo> getFiles() {
        return List.of();
      }

      @Override
      public String toString() {
        return "flushed state at " + ti;
      }
    };
  }

  /**
   * Runs on the apply thread: only reports the durable index, the flush did the I/O. While copy
   * images are open it reports the lowest of their indexes instead, so that Ratis keeps the log
   * after it for their destinations to replay.
   */
  @Override
  public long takeSnapshot() {
    TermIndex ti = snapshotTermIndex();
    if (ti == null) {
      return -1;
    }
    if (ti.getIndex() < store.durableIndex()) {
      LOG.info("tablet {}: snapshot held back at {} while copy sessions are open", tabletId, ti);
    }
    TermIndex prev = lastSnapshot;
    if (prev == null || ti.getIndex() > prev.getIndex()) {
      lastSnapshot = ti;
    }
    return ti.getIndex();
  }

  /** The durable flush, or the lowest open copy image if that is older; null if none. */
  private TermIndex snapshotTermIndex() {
    BlockTabletStore s = store;
    Superblock sb = s == null ? null : s.durableState();
    if (sb == null || sb.durableIndex() <= 0) {
      return null;
    }
    TermIndex held = imagePins.lowest();
    if (held != null && held.getIndex() < sb.durableIndex()) {
      return held;
    }
    return TermIndex.valueOf(sb.durableTerm(), sb.durableIndex());
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
      // A fresh array (flattened, or decrypted): the parsed rows alias it instead of a copy.
      TabletOpPB op = AliasingMarshaller.parseAliased(TabletOpPB.parser(),
          payloads.open(entry.getStateMachineLogEntry().getLogData().toByteArray()));
      WriteResultPB result;
      if (op.hasWrite()) {
        result = applyWrite(op.getWrite(), index);
      } else if (op.hasAlterSchema()) {
        result = applyAlterSchema(op.getAlterSchema(), index);
      } else {
        throw NyalaException.corruption("tablet %s: entry %d holds no known operation",
            tabletId, index);
      }
      return CompletableFuture.completedFuture(
          Message.valueOf(UnsafeByteOperations.unsafeWrap(result.toByteArray())));
    } catch (Exception e) {
      // Deterministic (same bytes on every replica), so every replica fails the same way.
      LOG.warn("tablet {}: entry {} not applied: {}", tabletId, index, e.getMessage());
      return CompletableFuture.failedFuture(NyalaException.from(e));
    } finally {
      updateLastAppliedTermIndex(entry.getTerm(), index);
    }
  }

  private WriteResultPB applyWrite(WriteOpPB w, long index) {
    BlockTabletStore s = store;
    Schema ws = writeSchemas.resolve(w.getSchema(), s.schema());
    List<RowOperations.Op> ops = RowOperations.decode(ws, w.getRowOperations());
    List<RowError> errors = s.apply(ws, ops, index);
    WriteResultPB.Builder b = WriteResultPB.newBuilder().setWriteIndex(index);
    for (RowError e : errors) {
      b.addPerRowErrors(PerRowResultPB.newBuilder()
          .setRowIndex(e.rowIndex()).setError(e.error().toPb()));
    }
    listener.rowsApplied(tabletId, ops.size() - errors.size());
    return b.build();
  }

  /**
   * An ALTER_SCHEMA entry. A version not newer than the store's (a replay after a snapshot that
   * already holds it) changes nothing; the owner is told either way so that metadata written
   * before a crash catches up.
   */
  private WriteResultPB applyAlterSchema(AlterSchemaOpPB alter, long index) {
    Schema next = Schema.fromPb(alter.getSchema());
    BlockTabletStore s = store;
    if (next.version() > s.schema().version()) {
      s.alterSchema(next, index);
      LOG.info("tablet {}: schema altered to version {} at index {}", tabletId, next.version(),
          index);
    }
    listener.schemaAltered(tabletId, next, alter.getNewTableName(), index);
    return WriteResultPB.newBuilder().setWriteIndex(index).build();
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
    synchronized (waiters) {
      if (appliedIndex() >= index) {
        return CompletableFuture.completedFuture(index);
      }
      CompletableFuture<Long> f = new CompletableFuture<>();
      waiters.computeIfAbsent(index, k -> new ArrayList<>()).add(f);
      return f;
    }
  }

  private void signalApplied(long index) {
    List<CompletableFuture<Long>> ready = new ArrayList<>();
    synchronized (waiters) {
      Map<Long, List<CompletableFuture<Long>>> head = waiters.headMap(index, true);
      head.forEach((k, fs) -> ready.addAll(fs));
      head.clear();
    }
    ready.forEach(f -> f.complete(index));
  }

  @Override
  protected boolean updateLastAppliedTermIndex(long term, long index) {
    BlockTabletStore s = store;
    if (s != null) {
      s.markApplied(term, index);
    }
    boolean updated = super.updateLastAppliedTermIndex(term, index);
    signalApplied(index);
    return updated;
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    // Configuration and leader no-op entries advance the applied index without a transaction.
    super.notifyTermIndexUpdated(term, index);
    BlockTabletStore s = store;
    if (s != null) {
      s.markApplied(term, index);
    }
    signalApplied(index);
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
    listener.leaderChanged(tabletId);
  }

  /**
   * The replica is being deleted here: copies in progress stop (their received blocks are
   * deleted, no superblock is installed afterwards) and no new copy starts. Waits for a copy
   * step in progress (at most one block append or one superblock write).
   */
  public void cancelCopies(String why) {
    copiesCancelled = why;
    for (BlockImageInstaller c : List.copyOf(copies)) {
      c.cancel(why);
    }
  }

  @Override
  public void close() throws IOException {
    cancelCopies("tablet " + tabletId + " closed here");
    super.close();
    BlockTabletStore s = store;
    if (s != null) {
      s.close();
    }
    listener.stateMachineClosed(tabletId, RaftGroupMemberId.valueOf(getId(), getGroupId()));
    List<CompletableFuture<Long>> pending = new ArrayList<>();
    synchronized (waiters) {
      waiters.values().forEach(pending::addAll);
      waiters.clear();
    }
    pending.forEach(f -> f.completeExceptionally(
        NyalaException.unavailable("tablet %s is shutting down", tabletId)));
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
    this.copier = c;
  }

  /**
   * Opens the durable image a copy session sends: the store's superblock and the blocks it
   * lists, pinned until the image is closed (the state the leader's log continues from). Until
   * then no snapshot moves the log's purge point past it. ILLEGAL_STATE if nothing was flushed
   * yet (then the log itself catches replicas up).
   */
  public TabletImage openCopyImage() {
    BlockTabletStore s = store;
    if (s == null || s.durableIndex() <= 0) {
      throw NyalaException.illegalState("tablet %s has no snapshot to copy yet (nothing flushed)",
          tabletId);
    }
    // Pinned before the state is captured: a flush meanwhile only moves the durable index up,
    // and its snapshot must not purge past what the image holds.
    Superblock before = s.durableState();
    long early = before.durableIndex();
    imagePins.pin(early, before.durableTerm());
    try {
      BlockTabletStore.DurableSnapshot snap = s.pinDurable();
      long index = snap.superblock().durableIndex();
      imagePins.pin(index, snap.superblock().durableTerm());
      return BlockImage.open(snap, blocks, () -> imagePins.unpin(index));
    } finally {
      imagePins.unpin(early);
    }
  }

  /** Whether this replica is being rebuilt from the leader's image right now. */
  public boolean copyInProgress() {
    return !copies.isEmpty();
  }

  /** Copy images open on this replica (for tests and pages). */
  public int openCopyImages() {
    return imagePins.count();
  }

  /**
   * Ratis: the leader's log starts after what this replica has, so it must be rebuilt from the
   * leader's image. Completes with the image's (term, index); Ratis then calls
   * {@link #reinitialize()}, which loads the installed superblock. Completes with null when the
   * leader has no image but still its whole log (then the log catches this replica up).
   */
  @Override
  public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(RoleInfoProto roleInfo,
      TermIndex firstTermIndexInLog) {
    boolean wholeLog = firstTermIndexInLog.getIndex() <= 0;
    TabletCopier c = copier;
    HostPort leader = leaderRpcAddress(roleInfo);
    if (c == null || leader == null) {
      if (wholeLog) {
        return CompletableFuture.completedFuture(null);
      }
      return CompletableFuture.failedFuture(NyalaException.unavailable("tablet %s: cannot copy "
          + "from the leader (%s)", tabletId, c == null ? "no copier" : "leader address unknown"));
    }
    String cancelled = copiesCancelled;
    if (cancelled != null) {
      return CompletableFuture.failedFuture(new NyalaException(StatusCode.ABORTED,
          "tablet " + tabletId + ": no copy: " + cancelled));
    }
    LOG.info("tablet {}: leader's log starts at {}; copying the tablet from {}", tabletId,
        firstTermIndexInLog, leader);
    BlockImageInstaller into = newImageInstaller();
    copies.add(into);
    if (copiesCancelled != null) {
      into.cancel(copiesCancelled); // a cancel raced with this registration
    }
    CompletableFuture<TermIndex> copied = c.copy(tabletId, leader, into)
        .whenComplete((ti, t) -> copies.remove(into));
    if (!wholeLog) {
      return copied;
    }
    // Ratis offers every joining peer an install once, even when the leader still has its whole
    // log. An image is still preferred: replaying from the start would read writes made before
    // an alter against the schema this replica was created with. Without one (ILLEGAL_STATE:
    // no snapshot yet), null tells Ratis to send the whole log instead.
    return copied.exceptionally(t -> {
      NyalaException e = NyalaException.from(t instanceof CompletionException ce
          && ce.getCause() != null ? ce.getCause() : t);
      if (e.code() != StatusCode.ILLEGAL_STATE) {
        throw e;
      }
      LOG.info("tablet {}: no image on the leader ({}); catching up from its whole log",
          tabletId, e.detail());
      return null;
    });
  }

  /**
   * Where a copied image goes: new blocks of this server's block manager and this replica's
   * superblock, which {@link #reinitialize()} loads. Before the superblock is replaced the
   * current store stops flushing (a flush would overwrite it).
   */
  private BlockImageInstaller newImageInstaller() {
    return new BlockImageInstaller(env, blocks, superblockFile, () -> {
      BlockTabletStore s = store;
      if (s != null) {
        s.close();
      }
    });
  }

  /** The leader's RPC address: Ratis fills the leader's peer (with clientAddress) from its conf. */
  private static HostPort leaderRpcAddress(RoleInfoProto roleInfo) {
    if (!roleInfo.hasFollowerInfo()) {
      return null;
    }
    String addr = roleInfo.getFollowerInfo().getLeaderInfo().getId().getClientAddress();
    return addr.isEmpty() ? null : HostPort.parse(addr, 0);
  }
}
