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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a replica for CreateTablet: validates the request, writes the tablet's metadata, then
 * adds its Raft group, so the metadata is on disk before the group exists (docs/architecture.md,
 * "Replica lifecycle"). The replica is OPENING until Ratis has added the group: Ratis adds
 * groups one at a time, so under a burst of creates and wakes that can take longer than a
 * CreateTablet call may wait, and the add is never given up on (the replica keeps its metadata
 * while Ratis still adds the group). A group Ratis refuses leaves the replica FAILED, reported
 * to the master, which replaces it (docs/dense-nodes.md, "Creating many replicas").
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

  /**
   * See {@link TabletManager#createTablet}; the caller serialises creates and deletes. Returns
   * once the metadata is durable and the group's add is with Ratis; the future completes when
   * the replica has opened (or went FAILED). An existing replica is left as it is.
   */
  CompletableFuture<Void> create(CreateTabletRequestPB req) {
    String id = req.getTabletId();
    RaftIds.groupId(id); // validates the id
    if (replicas.contains(id)) {
      return CompletableFuture.completedFuture(null);
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
    String joining = req.getJoining() ? " (joining: waits for the leader to add it)" : "";
    return groups.addAsync(r, true, meta.getInitialPeersList()).handle((v, t) -> {
      try {
        if (t != null) {
          NyalaException e = NyalaException.from(t);
          NyalaException failed = new NyalaException(e.code(), "tablet " + id
              + ": Ratis refused to add its Raft group: " + e.detail(), t);
          r.markFailed(failed);
          LOG.warn("tablet {}: replica FAILED: {}", id, failed.getMessage());
          throw new CompletionException(failed);
        }
        r.openedOrFailed();
        LOG.info("created tablet {} of table {} with peers {}{}", id, req.getTableName(), uuids,
            joining);
        return null;
      } finally {
        listener.leaderChanged(id);
      }
    });
  }
}
