package io.nyala.tserver.replica;

import io.nyala.common.HostPort;
import io.nyala.common.proto.tserver.ConfirmHibernatedRequestPB;
import io.nyala.common.proto.tserver.HibernateReplicaRequestPB;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import java.util.concurrent.CompletableFuture;

/**
 * How a replica reaches its peers' tablet servers for the hibernation protocol
 * (docs/dense-nodes.md). The server's is gRPC; tests route calls between fake replicas and drop
 * the ones they choose.
 */
public interface PeerChannel {
  /** A peer of a tablet: its tablet server's uuid and RPC address. */
  record Peer(String uuid, HostPort rpcAddress) {}

  /**
   * Asks {@code to} to hibernate its replica; completes normally when it did, exceptionally
   * (a {@link io.nyala.common.NyalaException}) when it refused or could not be reached.
   */
  CompletableFuture<Void> hibernate(Peer to, HibernateReplicaRequestPB req, long timeoutMs);

  /** Asks {@code to} to wake its replica; completes as {@link #hibernate} does. */
  CompletableFuture<Void> wake(Peer to, WakeReplicaRequestPB req, long timeoutMs);

  /**
   * Asks {@code to}, the tablet's leader, to run its hibernation round now (a clean stop of this
   * server); completes normally once the tablet is hibernated, exceptionally as
   * {@link #hibernate} does (ILLEGAL_STATE: the leader refused).
   */
  CompletableFuture<Void> requestHibernation(Peer to, RequestHibernationRequestPB req,
      long timeoutMs);

  /**
   * Asks {@code to} whether its replica is still hibernated at the request's term and index;
   * completes normally if it is, exceptionally as {@link #hibernate} does otherwise
   * (ILLEGAL_STATE: it is not, or no longer, closed there).
   */
  CompletableFuture<Void> confirmHibernated(Peer to, ConfirmHibernatedRequestPB req,
      long timeoutMs);
}
