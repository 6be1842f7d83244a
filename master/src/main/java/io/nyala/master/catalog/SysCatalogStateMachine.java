package io.nyala.master.catalog;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.SealedEntries;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysCatalogSnapshotPB;
import io.nyala.common.security.LogPayloads;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies sys catalog batches to the in-memory {@link CatalogState}, each batch atomically, and
 * snapshots the whole state into one file named the way {@link SimpleStateMachineStorage} finds
 * it ({@code snapshot.<term>_<index>}). On start Ratis loads the latest snapshot through
 * {@link #initialize} and then replays the log entries after it.
 */
final class SysCatalogStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(SysCatalogStateMachine.class);
  private static final SnapshotRetentionPolicy KEEP_TWO = new SnapshotRetentionPolicy() {
    @Override
    public int getNumSnapshotsRetained() {
      return 2;
    }
  };

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  /** The door for snapshot files (sensitive: they hold every table's schema). */
  private final Env env;
  /** Seals entries under the catalog key on the leader; opens them on apply. */
  private final LogPayloads payloads;
  /**
   * Guards {@link #state} and keeps the last-applied term/index consistent with it, so a
   * snapshot never pairs a state with the wrong index. Held only for in-memory work.
   */
  private final Object lock = new Object();
  private final LocationsVersions versions = new LocationsVersions();
  private CatalogState state = new CatalogState(versions);
  private volatile Runnable leaderListener = () -> { };
  private volatile Consumer<String> tabletListener = id -> { };
  /**
   * Per cluster key version, the index of the last applied entry whose envelope names it
   * (docs/encryption.md, "Rotating the cluster key"); rebuilt by the replay after a restart.
   */
  private final Map<Integer, Long> lastIndexByKeyVersion = new ConcurrentHashMap<>();

  SysCatalogStateMachine(Env env, LogPayloads payloads) {
    this.env = env;
    this.payloads = payloads;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    loadLatestSnapshot();
  }

  @Override
  public void reinitialize() throws IOException {
    loadLatestSnapshot();
  }

  @Override
  public SimpleStateMachineStorage getStateMachineStorage() {
    return storage;
  }

  void setLeaderListener(Runnable r) {
    leaderListener = r;
  }

  /** Told the id of each tablet put or deleted by an applied entry, after it applied. */
  void setTabletListener(Consumer<String> l) {
    tabletListener = l;
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
    leaderListener.run();
  }

  /** On the leader: seals the batch under this term's catalog key before it is appended. */
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
    SysCatalogBatchPB batch;
    try {
      byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
      batch = SysCatalogBatchPB.parseFrom(payloads.open(data));
      int keyVersion = payloads.envelopeVersion(data);
      if (keyVersion > 0) {
        lastIndexByKeyVersion.put(keyVersion, entry.getIndex());
      }
    } catch (IOException | NyalaException e) {
      // Only this master writes entries, so a bad one means the log is damaged.
      LOG.error("sys catalog entry {} is corrupt", entry.getIndex(), e);
      return CompletableFuture.failedFuture(NyalaException.corruption(
          "sys catalog entry %d is corrupt: %s", entry.getIndex(), e.getMessage()));
    }
    synchronized (lock) {
      for (SysCatalogOpPB op : batch.getOpsList()) {
        state.apply(op);
      }
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    }
    for (SysCatalogOpPB op : batch.getOpsList()) {
      switch (op.getOpCase()) {
        case PUT_TABLET -> tabletListener.accept(op.getPutTablet().getTabletId());
        case DELETE_TABLET_ID -> tabletListener.accept(op.getDeleteTabletId());
        default -> { }
      }
    }
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  /**
   * The cluster key versions of the applied entries a restart would replay (those after the
   * latest snapshot), oldest first.
   */
  List<Integer> logKeyVersions() {
    SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
    long snapshotIndex = latest == null ? -1 : latest.getIndex();
    return lastIndexByKeyVersion.entrySet().stream()
        .filter(e -> e.getValue() > snapshotIndex).map(Map.Entry::getKey).sorted().toList();
  }

  /**
   * Whether an entry under {@code version} was applied after every entry under an older one:
   * a snapshot now would leave no older version for a restart to replay.
   */
  boolean appliedPast(int version) {
    Long newest = lastIndexByKeyVersion.get(version);
    return newest != null && lastIndexByKeyVersion.entrySet().stream()
        .filter(e -> e.getKey() < version).allMatch(e -> e.getValue() < newest);
  }

  LocationsVersions versions() {
    return versions;
  }

  /** Runs {@code reader} under the lock; it must copy what it keeps (entries are immutable). */
  <T> T read(Function<CatalogState, T> reader) {
    synchronized (lock) {
      return reader.apply(state);
    }
  }

  /**
   * Writes the state to a snapshot file. The catalog is small (one entry per table and tablet),
   * so the write on Ratis' apply thread is short; building the proto holds the lock, the I/O
   * does not.
   */
  @Override
  public long takeSnapshot() throws IOException {
    SysCatalogSnapshotPB pb;
    TermIndex ti;
    synchronized (lock) {
      ti = getLastAppliedTermIndex();
      if (ti == null || ti.getIndex() < 0) {
        return RaftLog.INVALID_LOG_INDEX;
      }
      pb = state.toSnapshot(ti.getTerm(), ti.getIndex());
    }
    File f = storage.getSnapshotFile(ti.getTerm(), ti.getIndex());
    try {
      env.replaceFile(f.toPath(), pb.toByteArray(), OpenOptions.SENSITIVE);
    } catch (NyalaException e) {
      throw new IOException(e.getMessage(), e);
    }
    // The digest file lets Ratis (and our load) detect a damaged snapshot.
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(f);
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(f.toPath(), md5), ti));
    storage.cleanupOldSnapshots(KEEP_TWO);
    LOG.info("sys catalog snapshot at {} written to {}", ti, f);
    return ti.getIndex();
  }

  private void loadLatestSnapshot() throws IOException {
    SingleFileSnapshotInfo info = storage.loadLatestSnapshot();
    if (info == null) {
      return;
    }
    File f = info.getFile().getPath().toFile();
    if (info.hasMd5() && !MD5FileUtil.computeMd5ForFile(f).equals(
        info.getFile().getFileDigest())) {
      throw new IOException("sys catalog snapshot " + f + " does not match its MD5 digest");
    }
    SysCatalogSnapshotPB pb;
    try {
      pb = SysCatalogSnapshotPB.parseFrom(env.readFile(f.toPath(), OpenOptions.SENSITIVE));
    } catch (IOException | NyalaException e) {
      throw new IOException("sys catalog snapshot " + f + " is unreadable: " + e.getMessage(), e);
    }
    synchronized (lock) {
      state = CatalogState.fromSnapshot(pb, versions);
      setLastAppliedTermIndex(info.getTermIndex());
    }
    LOG.info("sys catalog loaded snapshot {}: {} tables, {} tablets", info.getTermIndex(),
        pb.getTablesCount(), pb.getTabletsCount());
  }
}
