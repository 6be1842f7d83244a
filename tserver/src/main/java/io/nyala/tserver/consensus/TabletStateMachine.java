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
import io.nyala.common.schema.Schema;
import io.nyala.common.security.LogPayloads;
import io.nyala.tserver.tablet.MemTabletStore;
import io.nyala.tserver.tablet.RowError;
import io.nyala.tserver.tablet.SnapshotFileImage;
import io.nyala.tserver.tablet.SnapshotFileInstaller;
import io.nyala.tserver.tablet.TabletImage;
import io.nyala.tserver.tablet.TabletImageInstaller;
import io.nyala.tserver.tablet.TabletStore;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tablet replica's Ratis state machine. Each log entry is a {@link TabletOpPB}; applying a
 * write tags its rows with the entry's index (the MVCC timestamp) and replies with a
 * {@link WriteResultPB}. Snapshots are whole-store files named by Ratis' term_index convention;
 * Ratis replays the log after the latest one.
 */
public final class TabletStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(TabletStateMachine.class);

  /** What the state machine reports to its owner; called on Ratis threads, must not block. */
  public interface Listener {
    void leaderChanged(String tabletId);

    void applied(String tabletId, int rows);

    /**
     * An ALTER_SCHEMA entry was applied at {@code index} and changed the store's schema: the
     * owner persists it (and the new table name, if not empty) in the tablet's metadata.
     */
    default void schemaAltered(String tabletId, Schema schema, String newTableName, long index) {}
  }

  private final String tabletId;
  private final Schema schema;
  private final Listener listener;
  /** The door for snapshot files (sensitive: they hold every row). */
  private final Env env;
  /** Seals payloads on the leader, opens them on every replica. */
  private final LogPayloads payloads;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  /** Replaced wholesale when a snapshot is loaded (initialize, reinitialize). */
  private volatile TabletStore store;
  private volatile boolean initialized;
  /** Pulls the leader's image when the log cannot catch this replica up; set by the owner. */
  private volatile TabletCopier copier;
  /** Copy images served from here and still open: snapshots are held back to the lowest. */
  private final ImagePins imagePins = new ImagePins();
  /** Index → futures waiting for it to be applied; guarded by itself. */
  private final TreeMap<Long, List<CompletableFuture<Long>>> waiters = new TreeMap<>();

  public TabletStateMachine(String tabletId, Schema schema, Listener listener, Env env,
      LogPayloads payloads) {
    this.env = env;
    this.payloads = payloads;
    this.tabletId = tabletId;
    this.schema = schema;
    this.listener = listener;
    this.store = new MemTabletStore(schema);
  }

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
    storage.init(raftStorage);
    loadSnapshot(storage.getLatestSnapshot());
    initialized = true;
    markRunning();
  }

  @Override
  public void reinitialize() throws IOException {
    loadSnapshot(storage.loadLatestSnapshot());
    markRunning();
  }

  private void loadSnapshot(SingleFileSnapshotInfo snap) throws IOException {
    if (snap == null) {
      return;
    }
    TabletStore s = new MemTabletStore(schema);
    s.loadSnapshot(env, snap.getFile().getPath());
    store = s;
    setLastAppliedTermIndex(snap.getTermIndex());
    signalApplied(snap.getIndex());
    LOG.info("tablet {}: loaded snapshot at {} ({} rows)", tabletId, snap.getTermIndex(),
        s.liveRowCount());
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public SingleFileSnapshotInfo getLatestSnapshot() {
    return storage.getLatestSnapshot();
  }

  @Override
  public long takeSnapshot() throws IOException {
    long held = imagePins.lowest();
    if (held >= 0) {
      LOG.info("tablet {}: snapshot held back at {} while copy sessions are open", tabletId, held);
      return held;
    }
    // Runs on the apply thread, so the store holds exactly the entries up to lastApplied.
    TermIndex last = getLastAppliedTermIndex();
    if (last == null || last.getIndex() < 0) {
      return -1;
    }
    File f = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    store.writeSnapshot(env, f.toPath());
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(f);
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(f.toPath(), md5), last));
    LOG.info("tablet {}: wrote snapshot at {}", tabletId, last);
    return last.getIndex();
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
    try {
      byte[] data = payloads.open(entry.getStateMachineLogEntry().getLogData().toByteArray());
      TabletOpPB op = TabletOpPB.parseFrom(data);
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
    Schema ws = Schema.fromPb(w.getSchema());
    List<RowOperations.Op> ops = RowOperations.decode(ws, w.getRowOperations());
    List<RowError> errors = store.apply(ws, ops, index);
    WriteResultPB.Builder b = WriteResultPB.newBuilder().setWriteIndex(index);
    for (RowError e : errors) {
      b.addPerRowErrors(PerRowResultPB.newBuilder()
          .setRowIndex(e.rowIndex()).setError(e.error().toPb()));
    }
    listener.applied(tabletId, ops.size() - errors.size());
    return b.build();
  }

  /**
   * An ALTER_SCHEMA entry. A version not newer than the store's (a replay after a snapshot that
   * already holds it) changes nothing; the owner is told either way so that metadata written
   * before a crash catches up.
   */
  private WriteResultPB applyAlterSchema(AlterSchemaOpPB alter, long index) {
    Schema next = Schema.fromPb(alter.getSchema());
    TabletStore s = store;
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
    boolean updated = super.updateLastAppliedTermIndex(term, index);
    signalApplied(index);
    return updated;
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    // Configuration and leader no-op entries advance the applied index without a transaction.
    super.notifyTermIndexUpdated(term, index);
    signalApplied(index);
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
    listener.leaderChanged(tabletId);
  }

  @Override
  public void close() throws IOException {
    super.close();
    List<CompletableFuture<Long>> pending = new ArrayList<>();
    synchronized (waiters) {
      waiters.values().forEach(pending::addAll);
      waiters.clear();
    }
    pending.forEach(f -> f.completeExceptionally(
        NyalaException.unavailable("tablet %s is shutting down", tabletId)));
  }

  // ---- tablet copy (DESIGN §4): this replica as source and as destination ----

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

  /** Sets who pulls images for this replica; without one, install requests fail. */
  public void setCopier(TabletCopier c) {
    this.copier = c;
  }

  /**
   * Opens the durable image a copy session sends: the latest snapshot (the state the leader's
   * log continues from). Until the image is closed, no new snapshot moves the log's purge point.
   * ILLEGAL_STATE if there is no snapshot yet (then the log itself catches replicas up).
   */
  public TabletImage openCopyImage() throws IOException {
    SingleFileSnapshotInfo snap = storage.getLatestSnapshot();
    if (snap == null) {
      throw NyalaException.illegalState("tablet %s has no snapshot to copy yet", tabletId);
    }
    long index = snap.getIndex();
    // Pinned before the file is read: a snapshot taken meanwhile must not purge past it.
    imagePins.pin(index);
    try {
      return SnapshotFileImage.open(env, snap.getFile().getPath(), index, snap.getTerm(),
          () -> imagePins.unpin(index));
    } catch (IOException | RuntimeException e) {
      imagePins.unpin(index);
      throw e;
    }
  }

  /** Copy images open on this replica (for tests and pages). */
  public int openCopyImages() {
    return imagePins.count();
  }

  /**
   * Ratis: the leader's log starts after what this replica has, so it must be rebuilt from the
   * leader's image. Completes with the image's (term, index); Ratis then calls
   * {@link #reinitialize()}, which loads the installed snapshot. Completes with null when the
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
    LOG.info("tablet {}: leader's log starts at {}; copying the tablet from {}", tabletId,
        firstTermIndexInLog, leader);
    CompletableFuture<TermIndex> copied = c.copy(tabletId, leader, newImageInstaller());
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
   * Where a copied image goes: for the in-memory store, this replica's snapshot directory, which
   * {@link #reinitialize()} loads. With {@link #openCopyImage()}, the one place that knows what
   * the store's image is (the block-based engine returns its own image and installer here).
   */
  private TabletImageInstaller newImageInstaller() {
    return new SnapshotFileInstaller(env, new SnapshotFileInstaller.Target() {
      @Override
      public Path snapshotFile(long term, long index) {
        return storage.getSnapshotFile(term, index).toPath();
      }

      @Override
      public void installed(Path file, long term, long index) throws IOException {
        MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
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
