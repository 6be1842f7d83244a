package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.consensus.TabletStateMachine;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a replica for CreateTablet: validates the request, writes the tablet's metadata, then
 * adds its Raft group, so the metadata is on disk before the group exists (docs/architecture.md,
 * "Replica lifecycle"). A group that cannot be added takes its metadata with it.
 */
final class ReplicaCreator {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaCreator.class);

  private final String serverUuid;
  private final HostedReplicas replicas;
  private final TabletMetadataFiles metadata;
  private final TabletKeys keys;
  private final ReplicaFactory factory;
  private final RaftGroups groups;
  private final TabletStateMachine.Listener listener;

  ReplicaCreator(String serverUuid, HostedReplicas replicas, TabletMetadataFiles metadata,
      TabletKeys keys, ReplicaFactory factory, RaftGroups groups,
      TabletStateMachine.Listener listener) {
    this.serverUuid = serverUuid;
    this.replicas = replicas;
    this.metadata = metadata;
    this.keys = keys;
    this.factory = factory;
    this.groups = groups;
    this.listener = listener;
  }

  /** See {@link TabletManager#createTablet}; the caller serialises creates and deletes. */
  void create(CreateTabletRequestPB req) {
    String id = req.getTabletId();
    RaftIds.groupId(id); // validates the id
    if (replicas.contains(id)) {
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
        .setWrappedTabletKey(keys.rewrap(req))
        .build();
    metadata.write(meta);
    TabletReplica r = factory.create(meta, metadata.file(id));
    replicas.put(r);
    try {
      groups.add(r, true);
    } catch (RuntimeException e) {
      replicas.remove(id);
      metadata.delete(id);
      throw e;
    }
    r.openedOrFailed();
    LOG.info("created tablet {} of table {} with peers {}{}", id, req.getTableName(), uuids,
        req.getJoining() ? " (joining: waits for the leader to add it)" : "");
    listener.leaderChanged(id);
  }
}
