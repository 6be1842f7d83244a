package io.nyala.tserver.replica;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.env.DurableDirs;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.fs.AtomicFiles;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.KeyWrap;
import io.nyala.common.security.WrappedKey;
import io.nyala.tserver.consensus.RaftLogWorkers;
import io.nyala.tserver.consensus.TabletCopier;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.Superblock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tablet replicas of this server and their lifecycle. Invariant: a replica's metadata is on
 * disk before its Raft group exists, and its group is gone before its metadata is deleted, so a
 * crash at any point leaves something {@link #load} and {@link #start} can finish.
 *
 * <p>Create and delete are serialised by this object's monitor (they are rare); lookups are
 * lock-free.
 */
public final class TabletManager {
  private static final Logger LOG = LoggerFactory.getLogger(TabletManager.class);
  private static final long GROUP_OP_TIMEOUT_MS = 30_000;

  private final Path metaDir;
  private final Path raftDir;
  /** One superblock file per tablet, named by the tablet id. */
  private final Path superblockDir;
  private final BlockManager blocks;
  private final String serverUuid;
  private final TabletStateMachine.Listener listener;
  private final Env env;
  /** Null when this server does not encrypt. */
  private final KeyProvider keys;
  private final KeyMaterial serverKey;
  private final Map<String, TabletReplica> tablets = new ConcurrentHashMap<>();
  /** Groups Ratis found on disk without metadata; removed once Ratis has started. */
  private final Set<RaftGroupId> orphans = ConcurrentHashMap.newKeySet();
  private final AtomicLong callIds = new AtomicLong();
  private final ClientId adminClientId = ClientId.randomId();
  private volatile RaftServer raftServer;
  /** Given to every state machine: how a replica pulls the leader's image. */
  private volatile TabletCopier copier;
  /** Given to every state machine: how long its store keeps old row versions. */
  private volatile HistoryRetention history = HistoryRetention.NONE;
  /** Blocks the startup GC of {@link #load} deleted as orphans. */
  private volatile int orphanBlocksDeleted;
  /** Orphaned blocks the startup GC's guard kept (see {@link OrphanBlockGc}). */
  private volatile int orphanBlocksKept;
  /**
   * Whether {@link #load} found the metadata dir new or without any tablet: then nothing on
   * disk may be taken for an orphan (see docs/data-safety.md, "File systems").
   */
  private volatile boolean metadataMissingAtLoad;
  /** Next to the Raft dir: group dirs kept out of Ratis' sight (see {@link #quarantine}). */
  public static final String ORPHANED_RAFT_DIR = "raft-orphaned";
  /**
   * Next to the Raft dir: the group dirs of hibernated replicas, where Ratis does not open them
   * at start (docs/dense-nodes.md).
   */
  public static final String HIBERNATED_RAFT_DIR = "raft-hibernated";
  /** Opens a hibernated replica's group again (set by the server; see {@link #use}). */
  private volatile java.util.function.Consumer<TabletReplica> waker = r -> {
    throw NyalaException.illegalState("tablet %s is hibernated and this server cannot wake it",
        r.tabletId());
  };
  /** {@code --orphan_block_gc_allow_mass_delete}. */
  private volatile boolean allowMassOrphanGc;

  /**
   * {@code env} is the server's door for sensitive files; {@code keys} and {@code serverKey} are
   * null unless the server encrypts (then tablet keys arrive wrapped by the cluster key and are
   * kept wrapped by the server key).
   */
  public TabletManager(Path metaDir, Path raftDir, String serverUuid,
      TabletStateMachine.Listener listener, Env env, KeyProvider keys, KeyMaterial serverKey,
      BlockManager blocks, Path superblockDir) {
    this.env = env;
    this.blocks = blocks;
    this.superblockDir = superblockDir;
    this.keys = keys;
    this.serverKey = serverKey;
    this.metaDir = metaDir;
    this.raftDir = raftDir;
    this.serverUuid = serverUuid;
    this.listener = listener;
  }

  /**
   * Step 1 of a start, before Ratis exists: reads metadata, finishes interrupted deletes and
   * deletes orphaned blocks.
   */
  public void load() {
    boolean metadataMissing;
    try {
      boolean metaDirExisted = Files.isDirectory(metaDir);
      DurableDirs.create(metaDir);
      DurableDirs.create(superblockDir);
      List<Path> files;
      try (Stream<Path> s = Files.list(metaDir)) {
        files = s.filter(p -> !p.getFileName().toString().endsWith(".tmp")).sorted().toList();
      }
      metadataMissing = !metaDirExisted || files.isEmpty();
      metadataMissingAtLoad = metadataMissing;
      for (Path f : files) {
        TabletMetadataPB meta = readMetadataOrFail(f);
        if (meta == null) {
          continue;
        }
        if (meta.getDataState() == TabletDataStatePB.TABLET_DATA_DELETING) {
          LOG.info("finishing the deletion of tablet {}", meta.getTabletId());
          BlockTabletStore.destroy(env, blocks, superblockFile(meta.getTabletId()));
          AtomicFiles.deleteTree(groupDir(RaftIds.groupId(meta.getTabletId())));
          AtomicFiles.deleteTree(coldGroupDir(RaftIds.groupId(meta.getTabletId())));
          Files.deleteIfExists(f);
          DurableDirs.sync(metaDir);
          continue;
        }
        TabletReplica r = newReplicaOrFailed(meta, f);
        placeGroupDir(r);
        tablets.put(meta.getTabletId(), r);
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read tablet metadata in " + metaDir + ": "
          + e.getMessage(), e);
    }
    LOG.info("loaded metadata of {} tablets", tablets.size());
    deleteOrphanBlocks(metadataMissing);
  }

  /**
   * Lets the startup GC delete orphaned blocks above its guard's share
   * ({@code --orphan_block_gc_allow_mass_delete}); call before {@link #load}.
   */
  public void allowMassOrphanGc(boolean allow) {
    this.allowMassOrphanGc = allow;
  }

  /**
   * Deletes blocks no tablet's superblock references (left by a crash between a block commit and
   * the superblock write, or by an interrupted delete). Runs only when every superblock could be
   * read: a block of an unreadable one would look orphaned.
   */
  private void deleteOrphanBlocks(boolean metadataMissing) {
    Set<BlockId> referenced = new HashSet<>();
    for (String name : env.listDir(superblockDir)) {
      Path f = superblockDir.resolve(name);
      if (name.endsWith(".tmp")) {
        deleteQuietly(f);
        continue;
      }
      if (!tablets.containsKey(name)) {
        if (metadataMissing) {
          // The metadata may be what is missing, not the tablet: keep its superblock.
          LOG.error("superblock {} has no tablet metadata, and the metadata dir {} is new or "
              + "empty: keeping it", f, metaDir);
        } else {
          LOG.warn("superblock {} has no tablet metadata; deleting it", f);
          deleteQuietly(f);
        }
        continue;
      }
      try {
        referenced.addAll(Superblock.read(env, f).allBlocks());
      } catch (RuntimeException e) {
        LOG.error("cannot read superblock {}; not deleting orphaned blocks: {}", f,
            e.getMessage());
        return;
      }
    }
    OrphanBlockGc.Outcome o = OrphanBlockGc.run(blocks, referenced, metadataMissing,
        allowMassOrphanGc, metaDir + " and " + superblockDir);
    orphanBlocksDeleted = o.deleted();
    orphanBlocksKept = o.kept();
  }

  /** How many orphaned blocks this start kept because deleting them looked unsafe. */
  public int orphanBlocksKeptAtStart() {
    return orphanBlocksKept;
  }

  /** How many orphaned blocks this start deleted (a crash mid-flush leaves some). */
  public int orphanBlocksDeletedAtStart() {
    return orphanBlocksDeleted;
  }

  Path superblockFile(String tabletId) {
    return superblockDir.resolve(tabletId);
  }

  private TabletReplica newReplica(TabletMetadataPB meta, Path file) {
    KeyMaterial tabletKey = null;
    if (!meta.getWrappedTabletKey().isEmpty()) {
      if (serverKey == null) {
        throw NyalaException.illegalState("tablet metadata %s holds an encrypted tablet key but "
            + "this server does not encrypt", file);
      }
      tabletKey = KeyWrap.unwrap(serverKey, meta.getWrappedTabletKey().toByteArray(),
          "tablet key in " + file);
    }
    return new TabletReplica(meta, listener, env, tabletKey, blocks,
        superblockFile(meta.getTabletId()));
  }

  /**
   * The metadata in {@code f}; when it is damaged, a FAILED replica of the tablet the file is
   * named for takes its place and null is returned. The replica keeps the tablet's superblock,
   * Raft log and blocks from being taken for orphans (docs/data-safety.md, "Damage is
   * contained"). A file not named like a tablet is left alone.
   */
  private TabletMetadataPB readMetadataOrFail(Path f) throws IOException {
    try {
      return readMetadata(f);
    } catch (NyalaException e) {
      String tabletId = f.getFileName().toString();
      try {
        RaftIds.groupId(tabletId);
      } catch (RuntimeException notATablet) {
        LOG.error("{} is not a tablet's metadata file and cannot be read; ignoring it: {}", f,
            e.detail());
        return null;
      }
      TabletMetadataPB placeholder = TabletMetadataPB.newBuilder().setTabletId(tabletId)
          .setDataState(TabletDataStatePB.TABLET_DATA_READY).build();
      TabletReplica r = new TabletReplica(placeholder, listener, env, null, blocks,
          superblockFile(tabletId));
      r.markFailed(new NyalaException(e.code(), "tablet " + tabletId + ": " + e.detail(), e));
      LOG.error("tablet {}: FAILED, its metadata cannot be read: {}", tabletId, e.detail());
      tablets.put(tabletId, r);
      return null;
    }
  }

  /** A replica of {@code meta}, or a FAILED one when its key cannot be unwrapped. */
  private TabletReplica newReplicaOrFailed(TabletMetadataPB meta, Path f) {
    try {
      return newReplica(meta, f);
    } catch (NyalaException e) {
      TabletReplica r = new TabletReplica(meta, listener, env, null, blocks,
          superblockFile(meta.getTabletId()));
      r.markFailed(new NyalaException(e.code(), "tablet " + meta.getTabletId() + ": "
          + e.detail(), e));
      LOG.error("tablet {}: FAILED: {}", meta.getTabletId(), e.detail());
      return r;
    }
  }

  private TabletMetadataPB readMetadata(Path f) throws IOException {
    try {
      return TabletMetadataPB.parseFrom(env.readFile(f, OpenOptions.SENSITIVE));
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("tablet metadata %s is corrupt: %s", f, e.getMessage());
    }
  }

  Path groupDir(RaftGroupId gid) {
    return raftDir.resolve(gid.getUuid().toString());
  }

  /** Where a hibernated replica's group dir is kept. */
  Path coldGroupDir(RaftGroupId gid) {
    return raftDir.resolveSibling(HIBERNATED_RAFT_DIR).resolve(gid.getUuid().toString());
  }

  /**
   * Puts a replica's group dir where its metadata says, before Ratis starts: out of Ratis'
   * storage dir when hibernated, in it otherwise. A crash between a hibernation's (or a wake's)
   * metadata write and its move leaves the dir on the wrong side; this finishes the move.
   */
  private void placeGroupDir(TabletReplica r) throws IOException {
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

  /** Writes a replica's new metadata durably and installs it (caller holds the replica). */
  void persistMetadata(TabletReplica r, TabletMetadataPB next) {
    env.replaceFile(metaFile(r.tabletId()), next.toByteArray(), OpenOptions.SENSITIVE);
    r.metadataPersisted(next);
  }

  RaftServer raftServer() {
    return raftServer;
  }

  /** A replica's state changed in a way the master should hear about soon. */
  void reportChanged(String tabletId) {
    listener.leaderChanged(tabletId);
  }

  /** Sets how a hibernated replica is woken (the server's hibernation service). */
  public void setWaker(java.util.function.Consumer<TabletReplica> waker) {
    this.waker = waker;
  }

  private Path metaFile(String tabletId) {
    return metaDir.resolve(tabletId);
  }

  /**
   * Sets how long every replica keeps old row versions ({@code --tablet_history_max_age_sec});
   * call before Ratis opens any group.
   */
  public void setHistoryRetention(HistoryRetention h) {
    this.history = h;
  }

  /** Sets how replicas pull images (tablet copy); call before Ratis opens any group. */
  public void setCopier(TabletCopier c) {
    this.copier = c;
  }

  /** Maps a group Ratis opens to its tablet's state machine. */
  public StateMachine.Registry registry() {
    return gid -> {
      TabletReplica r = tablets.get(RaftIds.tabletId(gid));
      if (r == null) {
        LOG.warn("Raft group {} has no tablet metadata; it will be removed", gid);
        orphans.add(gid);
        return new BaseStateMachine();
      }
      if (r.failure() != null) {
        return new BaseStateMachine(); // not opened: start() takes the group out of Ratis
      }
      TabletStateMachine sm = r.newStateMachine();
      sm.setCopier(copier);
      sm.setHistoryRetention(history);
      return sm;
    };
  }

  /** Step 2, after Ratis started: drops orphan groups, adds groups a crash left un-added. */
  public void start(RaftServer server) {
    this.raftServer = server;
    for (RaftGroupId gid : List.copyOf(orphans)) {
      try {
        removeGroup(gid);
      } catch (RuntimeException e) {
        LOG.warn("cannot remove orphan Raft group {}: {}", gid, e.getMessage());
      }
      orphans.remove(gid);
    }
    Set<RaftGroupId> loaded = ConcurrentHashMap.newKeySet();
    server.getGroupIds().forEach(loaded::add);
    int cold = 0;
    for (TabletReplica r : tablets.values()) {
      if (r.failure() != null) {
        if (loaded.contains(r.groupId())) {
          stopFailedGroup(r);
        }
        continue;
      }
      if (r.state() == ReplicaState.HIBERNATED) {
        cold++; // reported as it is; opened when something needs it
        continue;
      }
      if (!loaded.contains(r.groupId())) {
        LOG.info("tablet {}: Raft group missing (crash during create?), adding it", r.tabletId());
        try {
          addGroup(r, true);
        } catch (RuntimeException e) {
          LOG.warn("tablet {}: cannot add its Raft group", r.tabletId(), e);
          r.markFailed(NyalaException.from(e));
          continue;
        }
      }
      openedOrFailed(r);
    }
    LOG.info("{} tablet replicas: {} hibernated (not opened)", tablets.size(), cold);
  }

  /**
   * After a wake: gives the group until {@code deadlineNanos} to elect, so that the request is
   * served or answered NOT_LEADER with a hint instead of a guess. Polls: elections are rare.
   */
  private void awaitLeader(TabletReplica r, long deadlineNanos) {
    try {
      RaftServer.Division d = raftServer.getDivision(r.groupId());
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

  /** OPENING to RUNNING once the group's state machine opened its store; FAILED otherwise. */
  void openedOrFailed(TabletReplica r) {
    TabletStateMachine sm = r.stateMachineOrNull();
    if (sm != null && sm.isInitialized()) {
      synchronized (r) {
        if (r.state() == ReplicaState.OPENING) {
          r.transition(ReplicaState.RUNNING);
        }
      }
    } else if (r.failure() == null) {
      r.markFailed(sm != null && sm.openFailure() != null ? sm.openFailure()
          : NyalaException.illegalState("tablet %s: its Raft group did not open", r.tabletId()));
    }
  }

  /**
   * The replica of {@code tabletId}, let in for a request that needs its Raft group: a
   * hibernated replica is woken first (concurrent callers share one wake), and a hibernation
   * in progress is waited out, both within {@code deadlineNanos} (System.nanoTime). The caller
   * must call {@link TabletReplica#exit} when the request is done.
   */
  public TabletReplica use(String tabletId, boolean write, long deadlineNanos) {
    TabletReplica r = get(tabletId);
    if (r.enter(write, deadlineNanos, waker)) {
      awaitLeader(r, deadlineNanos);
    }
    return r;
  }

  public TabletReplica get(String tabletId) {
    TabletReplica r = tablets.get(tabletId);
    if (r == null) {
      throw NyalaException.notFound("tablet %s not found", tabletId);
    }
    return r;
  }

  public Collection<TabletReplica> replicas() {
    return List.copyOf(tablets.values());
  }

  public int count() {
    return tablets.size();
  }

  /**
   * Creates a replica: metadata, then the Raft group. Idempotent for an existing id. A joining
   * replica (re-replication) gets a group with an empty peer list, which the leader's
   * ChangeConfig then adds; its request need not list this server.
   */
  public synchronized void createTablet(CreateTabletRequestPB req) {
    String id = req.getTabletId();
    RaftIds.groupId(id); // validates the id
    if (tablets.containsKey(id)) {
      return;
    }
    Schema.forTable(Schema.fromPb(req.getSchema()).columns()); // validates the schema
    List<String> uuids = new ArrayList<>();
    for (RaftPeerPB p : req.getPeersList()) {
      uuids.add(p.getUuid());
    }
    if (!req.getJoining() && !uuids.contains(serverUuid)) {
      throw NyalaException.invalidArgument(
          "peers %s of tablet %s do not include this server %s", uuids, id, serverUuid);
    }
    TabletMetadataPB meta = TabletMetadataPB.newBuilder()
        .setTabletId(id).setTableId(req.getTableId()).setTableName(req.getTableName())
        .setSchema(req.getSchema()).setInitialSchema(req.getSchema())
        .setPartitionSchema(req.getPartitionSchema())
        .setPartition(req.getPartition())
        // A joining replica starts with no peers: the leader's ChangeConfig brings it in.
        .addAllInitialPeers(req.getJoining() ? List.of() : req.getPeersList())
        .setDataState(TabletDataStatePB.TABLET_DATA_READY)
        .setCreatedTimeMillis(System.currentTimeMillis())
        .setWrappedTabletKey(rewrapTabletKey(req))
        .build();
    env.replaceFile(metaFile(id), meta.toByteArray(), OpenOptions.SENSITIVE);
    TabletReplica r = newReplica(meta, metaFile(id));
    tablets.put(id, r);
    try {
      addGroup(r, true);
    } catch (RuntimeException e) {
      tablets.remove(id);
      deleteQuietly(metaFile(id));
      throw e;
    }
    openedOrFailed(r);
    LOG.info("created tablet {} of table {} with peers {}{}", id, req.getTableName(), uuids,
        req.getJoining() ? " (joining: waits for the leader to add it)" : "");
    listener.leaderChanged(id);
  }

  /**
   * The tablet key, unwrapped with the cluster key it came under and wrapped again by this
   * server's key, so opening the tablet later needs no call to the key provider.
   */
  private ByteString rewrapTabletKey(CreateTabletRequestPB req) {
    boolean hasKey = !req.getWrappedTabletKey().isEmpty();
    if (keys == null) {
      if (hasKey) {
        throw NyalaException.invalidArgument("tablet %s is encrypted but this server runs "
            + "without --encrypt_data_at_rest", req.getTabletId());
      }
      return ByteString.EMPTY;
    }
    if (!hasKey) {
      throw NyalaException.invalidArgument("tablet %s has no tablet key but this server "
          + "encrypts; is the master running with --encrypt_data_at_rest?", req.getTabletId());
    }
    KeyMaterial tabletKey = keys.unwrapServerKey(new WrappedKey(req.getTabletKeyVersion(),
        req.getWrappedTabletKey().toByteArray()), "tablet key of " + req.getTabletId());
    return ByteString.copyFrom(KeyWrap.wrap(serverKey, tabletKey));
  }

  /**
   * Persists a schema an applied ALTER_SCHEMA entry installed (and the new table name, unless
   * empty), so that reports and a restart see it. Runs on the tablet's apply thread, hence it
   * locks only the replica, never this manager (a delete holding it waits for that thread).
   * A version not newer than the persisted one, or a replica being deleted, is left alone.
   */
  public void schemaAltered(String tabletId, Schema schema, String newTableName) {
    TabletReplica r = tablets.get(tabletId);
    if (r == null) {
      return;
    }
    synchronized (r) {
      TabletMetadataPB m = r.metadata();
      if (m.getDataState() != TabletDataStatePB.TABLET_DATA_READY
          || schema.version() <= m.getSchema().getVersion()) {
        return;
      }
      TabletMetadataPB.Builder b = m.toBuilder().setSchema(schema.toPb());
      if (!m.hasInitialSchema()) {
        b.setInitialSchema(m.getSchema());
      }
      if (!newTableName.isEmpty()) {
        b.setTableName(newTableName);
      }
      TabletMetadataPB next = b.build();
      env.replaceFile(metaFile(tabletId), next.toByteArray(), OpenOptions.SENSITIVE);
      r.metadataPersisted(next);
    }
    LOG.info("tablet {}: persisted schema version {}", tabletId, schema.version());
  }

  /**
   * Deletes a replica: mark DELETING, remove the group and its directory, destroy the store's
   * data, drop the metadata. A crash in between is finished by {@link #load} at the next start.
   * Returns how long each step took.
   */
  public synchronized DeleteTimings deleteTablet(String tabletId, String reason) {
    TabletReplica r = get(tabletId);
    DeleteTimings.Clock clock = new DeleteTimings.Clock();
    synchronized (r) {
      if (r.state() == ReplicaState.DELETING) {
        throw NyalaException.notFound("tablet %s not found (being deleted)", tabletId);
      }
      TabletMetadataPB deleting = r.metadata().toBuilder()
          .setDataState(TabletDataStatePB.TABLET_DATA_DELETING).build();
      env.replaceFile(metaFile(tabletId), deleting.toByteArray(), OpenOptions.SENSITIVE);
      r.metadataPersisted(deleting);
      r.transition(ReplicaState.DELETING);
    }
    TabletStateMachine copying = r.stateMachineOrNull();
    if (copying != null) {
      // Before the store is destroyed: a copy finishing later would install a superblock.
      copying.cancelCopies("tablet " + tabletId + " is being deleted here");
    }
    DeleteTimings.Step mark = clock.lap();
    try {
      removeGroup(r.groupId());
    } catch (NyalaException e) {
      if (!(e.getCause() instanceof GroupMismatchException)) {
        throw e;
      }
    }
    DeleteTimings.Step group = clock.lap();
    destroyStore(r);
    DeleteTimings.Step blocks = clock.lap();
    // Also covers a group Ratis never loaded, or one hibernated.
    AtomicFiles.deleteTree(groupDir(r.groupId()));
    AtomicFiles.deleteTree(coldGroupDir(r.groupId()));
    deleteQuietly(metaFile(tabletId));
    tablets.remove(tabletId);
    DeleteTimings d = new DeleteTimings(mark, group, blocks, clock.lap());
    LOG.info("deleted tablet {} ({}): {}", tabletId, reason.isEmpty() ? "no reason given" : reason,
        d);
    listener.leaderChanged(tabletId);
    return d;
  }

  /**
   * A replica's data is damaged: it goes FAILED (reported to the master, which re-replicates it
   * from healthy peers) and its group leaves Ratis, its files kept, so that it neither votes nor
   * leads with data it does not have. Every other replica keeps serving (docs/data-safety.md,
   * "Damage is contained"). Runs on any thread, Ratis's included: never waits.
   */
  public void replicaFailed(String tabletId, NyalaException why) {
    TabletReplica r = tablets.get(tabletId);
    if (r == null || !r.markFailed(why)) {
      return;
    }
    LOG.error("tablet {}: replica FAILED: {}", tabletId, why.detail());
    if (raftServer != null) {
      stopFailedGroup(r); // else start() does it once Ratis runs
    }
    listener.leaderChanged(tabletId); // reports at once
  }

  /** Removes a FAILED replica's group from Ratis, keeping its directory; does not wait. */
  private void stopFailedGroup(TabletReplica r) {
    RaftServer server = raftServer;
    server.groupManagementAsync(GroupManagementRequest.newRemove(adminClientId, server.getId(),
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
   * The Ratis division of a replica closed its state machine. When the replica is being deleted,
   * its log worker is ended now rather than at its next poll (see {@link RaftLogWorkers}): the
   * removal deletes that log, and would otherwise wait up to a second for the thread. Runs on
   * the division's apply thread while {@link #deleteTablet} holds this manager's monitor: it
   * must take no lock.
   */
  public void replicaClosed(String tabletId, RaftGroupMemberId member) {
    TabletReplica r = tablets.get(tabletId);
    if (r == null) {
      return;
    }
    ReplicaState s = r.state();
    if (s == ReplicaState.DELETING || s == ReplicaState.HIBERNATING) {
      RaftLogWorkers.endForRemoval(member);
    }
  }

  /**
   * The store's blocks and superblock; its group is gone, so nothing applies or flushes. The
   * open store (if Ratis ever opened the group here) is told first, so that layers its readers
   * release later do not delete blocks again; the static path also covers a never-opened store.
   */
  private void destroyStore(TabletReplica r) {
    TabletStateMachine sm = r.stateMachineOrNull();
    if (sm != null && sm.store() != null) {
      sm.store().destroy();
    }
    BlockTabletStore.destroy(env, blocks, superblockFile(r.tabletId()));
  }

  /**
   * Adds a replica's group to Ratis: a new one ({@code format}) from its initial peers, or one
   * with storage (a woken replica) recovered from it, term, vote and log included.
   */
  void addGroup(TabletReplica r, boolean format) {
    addGroup(r, format, r.metadata().getInitialPeersList());
  }

  /** See {@link #addGroup(TabletReplica, boolean)}; {@code known}: the peers to start with. */
  void addGroup(TabletReplica r, boolean format, List<RaftPeerPB> known) {
    List<RaftPeer> peers = new ArrayList<>();
    for (RaftPeerPB p : known) {
      peers.add(RaftPeers.toRatis(p));
    }
    RaftGroup group = RaftGroup.valueOf(r.groupId(), peers);
    groupCall(r.groupId(), GroupManagementRequest.newAdd(adminClientId,
        raftServer.getId(), callIds.incrementAndGet(), group, format));
  }

  /** Closes a replica's group in Ratis and keeps every file of it (hibernation). */
  void closeGroup(RaftGroupId gid) {
    groupCall(gid, GroupManagementRequest.newRemove(adminClientId, raftServer.getId(),
        callIds.incrementAndGet(), gid, false, false));
  }

  private void removeGroup(RaftGroupId gid) {
    groupCall(gid, GroupManagementRequest.newRemove(adminClientId, raftServer.getId(),
        callIds.incrementAndGet(), gid, true, false));
  }

  private void groupCall(RaftGroupId gid, GroupManagementRequest req) {
    RaftClientReply reply;
    try {
      reply = raftServer.groupManagementAsync(req).get(GROUP_OP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("interrupted while changing Raft group %s", gid);
    } catch (Exception e) {
      throw RaftCalls.translate(e.getCause() != null ? e.getCause() : e, gid);
    }
    if (!reply.isSuccess()) {
      NyalaException ne = RaftCalls.translate(reply.getException(), gid);
      throw new NyalaException(ne.code(), ne.detail(), reply.getException());
    }
  }

  /** Orphan group directories Ratis would otherwise open (no metadata for them). */
  public void removeOrphanGroupDirs() {
    if (!Files.isDirectory(raftDir)) {
      return;
    }
    try (Stream<Path> s = Files.list(raftDir)) {
      for (Path d : s.filter(Files::isDirectory).toList()) {
        UUID u;
        try {
          u = UUID.fromString(d.getFileName().toString());
        } catch (IllegalArgumentException e) {
          continue; // not a group directory
        }
        if (tablets.containsKey(RaftIds.hexOf(u))) {
          continue;
        }
        if (metadataMissingAtLoad) {
          quarantine(d);
          continue;
        }
        LOG.warn("Raft group directory {} has no tablet metadata; removing it", d);
        AtomicFiles.deleteTree(d);
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot list " + raftDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Like the block GC, with no metadata at all every group would look orphaned: that is evidence
   * of lost metadata, not garbage. The group's log is moved out of Ratis' storage dir (which
   * Ratis would otherwise open, and this class then remove) and kept for the operator.
   */
  private void quarantine(Path groupDir) throws IOException {
    Path kept = raftDir.resolveSibling(ORPHANED_RAFT_DIR).resolve(groupDir.getFileName());
    DurableDirs.create(kept.getParent());
    Files.move(groupDir, kept, StandardCopyOption.ATOMIC_MOVE);
    DurableDirs.sync(raftDir);
    DurableDirs.sync(kept.getParent());
    LOG.error("Raft group directory {} has no tablet metadata, and neither has any other group: "
        + "the tablet metadata dir {} is new or empty (a wiped or replaced WAL dir?). NOT "
        + "removing it: moved to {}", groupDir, metaDir, kept);
  }

  /** Deletes durably: the parent dir is synced, so a crash cannot bring the file back. */
  private static void deleteQuietly(Path p) {
    try {
      if (Files.deleteIfExists(p)) {
        DurableDirs.sync(p.getParent());
      }
    } catch (IOException | NyalaException e) {
      LOG.warn("cannot delete {}: {}", p, e.getMessage());
    }
  }
}
