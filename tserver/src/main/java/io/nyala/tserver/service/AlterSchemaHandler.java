package io.nyala.tserver.service;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.proto.metadata.AlterSchemaOpPB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.common.proto.tserver.AlterSchemaResponsePB;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.tablet.TabletSchemaChange;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The AlterSchema RPC on a tablet's leader: checks the change against the current schema, then
 * replicates one ALTER_SCHEMA entry (sealed like a write when the tablet is encrypted). A schema
 * whose version is not newer than the tablet's is acknowledged without an entry, so the master
 * may resend an alter until every tablet has reported the new version.
 */
final class AlterSchemaHandler {
  private final TabletManager tablets;
  private final Supplier<RaftServer> raft;

  AlterSchemaHandler(TabletManager tablets, Supplier<RaftServer> raft) {
    this.tablets = tablets;
    this.raft = raft;
  }

  CompletableFuture<AlterSchemaResponsePB> alter(AlterSchemaRequestPB req) {
    TabletReplica replica = tablets.use(req.getTabletId(), CallerDeadline.nanos());
    return replica.serve(() -> alter(replica, req));
  }

  private CompletableFuture<AlterSchemaResponsePB> alter(TabletReplica replica,
      AlterSchemaRequestPB req) {
    RaftServer server = raft.get();
    replica.checkLeader(server);
    if (!req.hasSchema()) {
      throw NyalaException.invalidArgument("AlterSchema of tablet %s carries no schema",
          req.getTabletId());
    }
    Schema next = Schema.forTable(Schema.fromPb(req.getSchema()).columns())
        .withVersion(req.getSchema().getVersion());
    Schema current = replica.stateMachine().store().schema();
    if (next.version() <= current.version()) {
      return CompletableFuture.completedFuture(
          AlterSchemaResponsePB.newBuilder().setSchemaVersion(current.version()).build());
    }
    try {
      TabletSchemaChange.between(current, next);
    } catch (NyalaException e) {
      throw NyalaException.invalidArgument("tablet %s: cannot alter schema version %d to %d: %s",
          req.getTabletId(), current.version(), next.version(), e.detail());
    }
    TabletOpPB op = TabletOpPB.newBuilder().setAlterSchema(AlterSchemaOpPB.newBuilder()
        .setSchema(next.toPb()).setNewTableName(req.getNewTableName())).build();
    return RaftCalls.write(server, replica.groupId(), ClientId.randomId(), 0,
            UnsafeByteOperations.unsafeWrap(op.toByteArray()))
        .thenApply(reply -> AlterSchemaResponsePB.newBuilder()
            .setSchemaVersion(replica.stateMachine().store().schema().version()).build());
  }
}
