package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.SealedEntries;
import io.nyala.common.env.Env;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.LogPayloads;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.RowError;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
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

    void applied(String tabletId, int rows);
  }

  private final String tabletId;
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
  /** Index → futures waiting for it to be applied; guarded by itself. */
  private final TreeMap<Long, List<CompletableFuture<Long>>> waiters = new TreeMap<>();

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
    openStore();
    initialized = true;
  }

  @Override
  public void reinitialize() throws IOException {
    BlockTabletStore old = store;
    if (old != null) {
      old.close();
    }
    openStore();
  }

  /** Opens the store at its superblock's state; Ratis replays the log after that index. */
  private void openStore() {
    BlockTabletStore s = BlockTabletStore.open(tabletId, schema, env, blocks, superblockFile);
    s.onFlushed(this::requestSnapshot);
    store = s;
    if (s.durableIndex() > 0) {
      setLastAppliedTermIndex(TermIndex.valueOf(s.durableTerm(), s.durableIndex()));
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

  /** The last durable flush as Ratis' latest snapshot (no files: tablet copy moves blocks). */
  @Override
  public SnapshotInfo getLatestSnapshot() {
    BlockTabletStore s = store;
    if (s == null || s.durableIndex() <= 0) {
      return null;
    }
    TermIndex ti = TermIndex.valueOf(s.durableTerm(), s.durableIndex());
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

  /** Runs on the apply thread: only reports the durable index, the flush did the I/O. */
  @Override
  public long takeSnapshot() {
    BlockTabletStore s = store;
    return s == null || s.durableIndex() <= 0 ? -1 : s.durableIndex();
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
      if (!op.hasWrite()) {
        throw NyalaException.corruption("tablet %s: entry %d holds no known operation",
            tabletId, index);
      }
      WriteResultPB result = applyWrite(op.getWrite(), index);
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

  @Override
  public void close() throws IOException {
    super.close();
    BlockTabletStore s = store;
    if (s != null) {
      s.close();
    }
    List<CompletableFuture<Long>> pending = new ArrayList<>();
    synchronized (waiters) {
      waiters.values().forEach(pending::addAll);
      waiters.clear();
    }
    pending.forEach(f -> f.completeExceptionally(
        NyalaException.unavailable("tablet %s is shutting down", tabletId)));
  }
}
