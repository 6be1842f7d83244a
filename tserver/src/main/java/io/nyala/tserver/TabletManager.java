package io.nyala.tserver;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftPeers;
import io.nyala.common.fs.AtomicFiles;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.consensus.TabletStateMachine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
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
  private final String serverUuid;
  private final TabletStateMachine.Listener listener;
  private final Map<String, TabletReplica> tablets = new ConcurrentHashMap<>();
  /** Groups Ratis found on disk without metadata; removed once Ratis has started. */
  private final Set<RaftGroupId> orphans = ConcurrentHashMap.newKeySet();
  private final AtomicLong callIds = new AtomicLong();
  private final ClientId adminClientId = ClientId.randomId();
  private volatile RaftServer raftServer;

  public TabletManager(Path metaDir, Path raftDir, String serverUuid,
      TabletStateMachine.Listener listener) {
    this.metaDir = metaDir;
    this.raftDir = raftDir;
    this.serverUuid = serverUuid;
    this.listener = listener;
  }

  /** Step 1 of a start, before Ratis exists: reads metadata and finishes interrupted deletes. */
  public void load() {
    try {
      Files.createDirectories(metaDir);
      List<Path> files;
      try (Stream<Path> s = Files.list(metaDir)) {
        files = s.filter(p -> !p.getFileName().toString().endsWith(".tmp")).sorted().toList();
      }
      for (Path f : files) {
        TabletMetadataPB meta = readMetadata(f);
        if (meta.getDataState() == TabletDataStatePB.TABLET_DATA_DELETING) {
          LOG.info("finishing the deletion of tablet {}", meta.getTabletId());
          AtomicFiles.deleteTree(groupDir(RaftIds.groupId(meta.getTabletId())));
          Files.deleteIfExists(f);
          continue;
        }
        tablets.put(meta.getTabletId(), new TabletReplica(meta, listener));
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read tablet metadata in " + metaDir + ": "
          + e.getMessage(), e);
    }
    LOG.info("loaded metadata of {} tablets", tablets.size());
  }

  private static TabletMetadataPB readMetadata(Path f) throws IOException {
    try {
      return TabletMetadataPB.parseFrom(Files.readAllBytes(f));
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("tablet metadata %s is corrupt: %s", f, e.getMessage());
    }
  }

  private Path groupDir(RaftGroupId gid) {
    return raftDir.resolve(gid.getUuid().toString());
  }

  private Path metaFile(String tabletId) {
    return metaDir.resolve(tabletId);
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
      return r.newStateMachine();
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
    for (TabletReplica r : tablets.values()) {
      if (!loaded.contains(r.groupId())) {
        LOG.info("tablet {}: Raft group missing (crash during create?), adding it", r.tabletId());
        try {
          addGroup(r);
        } catch (RuntimeException e) {
          LOG.warn("tablet {}: cannot add its Raft group", r.tabletId(), e);
          r.markFailed(NyalaException.from(e));
        }
      }
    }
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

  /** Creates a replica: metadata, then the Raft group. Idempotent for an existing id. */
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
    if (!uuids.contains(serverUuid)) {
      throw NyalaException.invalidArgument(
          "peers %s of tablet %s do not include this server %s", uuids, id, serverUuid);
    }
    TabletMetadataPB meta = TabletMetadataPB.newBuilder()
        .setTabletId(id).setTableId(req.getTableId()).setTableName(req.getTableName())
        .setSchema(req.getSchema()).setPartitionSchema(req.getPartitionSchema())
        .setPartition(req.getPartition()).addAllInitialPeers(req.getPeersList())
        .setDataState(TabletDataStatePB.TABLET_DATA_READY)
        .setCreatedTimeMillis(System.currentTimeMillis())
        .build();
    AtomicFiles.write(metaFile(id), meta.toByteArray());
    TabletReplica r = new TabletReplica(meta, listener);
    tablets.put(id, r);
    try {
      addGroup(r);
    } catch (RuntimeException e) {
      tablets.remove(id);
      deleteQuietly(metaFile(id));
      throw e;
    }
    LOG.info("created tablet {} of table {} with peers {}", id, req.getTableName(), uuids);
    listener.leaderChanged(id);
  }

  /** Deletes a replica: mark DELETING, remove the group and its directory, drop the metadata. */
  public synchronized void deleteTablet(String tabletId, String reason) {
    TabletReplica r = get(tabletId);
    AtomicFiles.write(metaFile(tabletId), r.metadata().toBuilder()
        .setDataState(TabletDataStatePB.TABLET_DATA_DELETING).build().toByteArray());
    try {
      removeGroup(r.groupId());
    } catch (NyalaException e) {
      if (!(e.getCause() instanceof GroupMismatchException)) {
        throw e;
      }
    }
    // Also covers a group Ratis never loaded.
    AtomicFiles.deleteTree(groupDir(r.groupId()));
    deleteQuietly(metaFile(tabletId));
    tablets.remove(tabletId);
    LOG.info("deleted tablet {} ({})", tabletId, reason.isEmpty() ? "no reason given" : reason);
    listener.leaderChanged(tabletId);
  }

  private void addGroup(TabletReplica r) {
    List<RaftPeer> peers = new ArrayList<>();
    for (RaftPeerPB p : r.metadata().getInitialPeersList()) {
      peers.add(RaftPeers.toRatis(p));
    }
    RaftGroup group = RaftGroup.valueOf(r.groupId(), peers);
    groupCall(r.groupId(), GroupManagementRequest.newAdd(adminClientId,
        raftServer.getId(), callIds.incrementAndGet(), group));
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
        if (!tablets.containsKey(RaftIds.hexOf(u))) {
          LOG.warn("Raft group directory {} has no tablet metadata; removing it", d);
          AtomicFiles.deleteTree(d);
        }
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot list " + raftDir + ": " + e.getMessage(), e);
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.warn("cannot delete {}: {}", p, e.getMessage());
    }
  }
}
