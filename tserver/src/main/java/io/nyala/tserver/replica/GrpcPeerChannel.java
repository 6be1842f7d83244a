package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.ConfirmHibernatedRequestPB;
import io.nyala.common.proto.tserver.ConfirmHibernatedResponsePB;
import io.nyala.common.proto.tserver.HibernateReplicaRequestPB;
import io.nyala.common.proto.tserver.HibernateReplicaResponsePB;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.common.proto.tserver.RequestHibernationResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc.TabletServerAdminServiceStub;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.common.proto.tserver.WakeReplicaResponsePB;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.UnaryObserver;
import io.nyala.tserver.heartbeat.ClusterIdGuard;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The hibernation protocol over the peers' admin services (real gRPC). Answers are handled on
 * {@code callbacks}, a small fixed pool: on gRPC's default executor a storm of wakes and
 * hibernations (each answer or timeout one task) grew a cached pool by hundreds of threads,
 * which lingered a minute (docs/dense-nodes.md, "thread budget").
 */
public final class GrpcPeerChannel implements PeerChannel {
  private final Channels channels;
  private final ClusterIdGuard clusterGuard;
  private final Executor callbacks;

  public GrpcPeerChannel(Channels channels, ClusterIdGuard clusterGuard, Executor callbacks) {
    this.channels = channels;
    this.clusterGuard = clusterGuard;
    this.callbacks = callbacks;
  }

  @Override
  public CompletableFuture<Void> hibernate(Peer to, HibernateReplicaRequestPB req,
      long timeoutMs) {
    HibernateReplicaRequestPB r = req.toBuilder().setClusterId(clusterId()).build();
    return this.<HibernateReplicaResponsePB>call(to, timeoutMs,
        (stub, o) -> stub.hibernateReplica(r, o), HibernateReplicaResponsePB::getError);
  }

  @Override
  public CompletableFuture<Void> wake(Peer to, WakeReplicaRequestPB req, long timeoutMs) {
    WakeReplicaRequestPB r = req.toBuilder().setClusterId(clusterId()).build();
    return this.<WakeReplicaResponsePB>call(to, timeoutMs, (stub, o) -> stub.wakeReplica(r, o),
        WakeReplicaResponsePB::getError);
  }

  @Override
  public CompletableFuture<Void> requestHibernation(Peer to, RequestHibernationRequestPB req,
      long timeoutMs) {
    RequestHibernationRequestPB r = req.toBuilder().setClusterId(clusterId()).build();
    return this.<RequestHibernationResponsePB>call(to, timeoutMs,
        (stub, o) -> stub.requestHibernation(r, o), RequestHibernationResponsePB::getError);
  }

  @Override
  public CompletableFuture<Void> confirmHibernated(Peer to, ConfirmHibernatedRequestPB req,
      long timeoutMs) {
    ConfirmHibernatedRequestPB r = req.toBuilder().setClusterId(clusterId()).build();
    return this.<ConfirmHibernatedResponsePB>call(to, timeoutMs,
        (stub, o) -> stub.confirmHibernated(r, o), ConfirmHibernatedResponsePB::getError);
  }

  /** Sends one call with {@code send} and completes as {@link PeerChannel} says. */
  private <R> CompletableFuture<Void> call(Peer to, long timeoutMs,
      BiConsumer<TabletServerAdminServiceStub, UnaryObserver<R>> send,
      Function<R, ErrorPB> errorOf) {
    CompletableFuture<R> f = new CompletableFuture<>();
    send.accept(stub(to, timeoutMs), UnaryObserver.completing(f, "tablet server " + to.uuid()));
    return checked(f, errorOf, to);
  }

  private String clusterId() {
    String id = clusterGuard.accepted();
    return id == null ? "" : id;
  }

  private TabletServerAdminServiceStub stub(Peer to, long timeoutMs) {
    if (to.rpcAddress() == null) {
      throw NyalaException.unavailable("tablet server %s has no known RPC address", to.uuid());
    }
    return TabletServerAdminServiceGrpc.newStub(channels.get(to.rpcAddress()))
        .withExecutor(callbacks).withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
  }

  private static <R> CompletableFuture<Void> checked(CompletableFuture<R> f,
      Function<R, ErrorPB> errorOf, Peer to) {
    return f.handle((resp, t) -> {
      if (t != null) {
        throw NyalaException.unavailable("tablet server %s (%s): %s", to.uuid(), to.rpcAddress(),
            t.getMessage());
      }
      ErrorPB e = errorOf.apply(resp);
      if (e.getCode() != StatusCodePB.OK) {
        throw NyalaException.fromPb(e);
      }
      return null;
    });
  }
}
