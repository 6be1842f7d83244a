package io.nyala.tserver.service;

import io.grpc.BindableService;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.RpcServer;
import io.nyala.tserver.copy.CopySessions;
import io.nyala.tserver.copy.TabletCopyService;
import io.nyala.tserver.heartbeat.ClusterIdGuard;
import io.nyala.tserver.replica.ReplicaHibernator;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.scan.ScannerManager;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.ratis.server.RaftServer;

/**
 * Builds the gRPC services a tablet server serves (data, admin and tablet copy) from the parts
 * it has started, so that the handlers stay private to this package.
 */
public final class RpcServices {
  /** Threads serving peers' HibernateReplica and WakeReplica calls (docs/dense-nodes.md). */
  public static final int LIFECYCLE_RPC_THREADS = 4;

  private RpcServices() {}

  /**
   * The server's parts the handlers call.
   *
   * @param tablets the replicas of this server
   * @param raft the server's Raft server, read at each call (it is started after the services
   *     are built)
   * @param channels gRPC channels to other servers (a leader's DeleteTablet to a removed peer)
   * @param clusterGuard checks that an admin caller belongs to this server's cluster
   * @param scanners open scanners
   * @param copySessions tablet copy sessions served here
   * @param hibernator answers peers' HibernateReplica and WakeReplica calls
   * @param selfUuid this server's uuid
   * @param metrics where handlers register their counters
   * @param writeBatches where write entries queued behind an applied one are submitted
   */
  public record Parts(TabletManager tablets, Supplier<RaftServer> raft, Channels channels,
      ClusterIdGuard clusterGuard, ScannerManager scanners, CopySessions copySessions,
      ReplicaHibernator hibernator, String selfUuid, MetricRegistry metrics,
      Executor writeBatches) {}

  /**
   * The limits the handlers enforce, from the server's flags.
   *
   * @param maxWriteRequestBytes {@code --max_write_request_bytes}
   * @param writeMaxEntriesInFlight {@code --write_max_entries_in_flight}
   * @param faultDropWriteResponseAfterCommit {@code --fault_drop_write_response_after_commit}
   * @param scannerDefaultBatchRows rows per scan page when the request does not say
   */
  public record Limits(long maxWriteRequestBytes, int writeMaxEntriesInFlight,
      boolean faultDropWriteResponseAfterCommit, int scannerDefaultBatchRows) {}

  /** The data, admin and tablet copy services, in that order. */
  public static List<BindableService> build(Parts p, Limits limits) {
    WriteHandler writes = new WriteHandler(p.tablets(), p.raft(), limits.maxWriteRequestBytes(),
        limits.writeMaxEntriesInFlight(), p.writeBatches(),
        limits.faultDropWriteResponseAfterCommit(), p.metrics());
    ScanHandler scans = new ScanHandler(p.tablets(), p.raft(), p.scanners(),
        p.hibernator().coldReads(), limits.scannerDefaultBatchRows(), p.metrics());
    DeleteTabletHandler deletes = new DeleteTabletHandler(p.tablets(), p.raft(), p.scanners(),
        p.copySessions(), p.clusterGuard(), p.selfUuid(), p.metrics());
    return List.of(
        new TabletServerServices.Data(p.tablets(), p.raft(), writes, scans, p.scanners())
            .withAliasedWrites(),
        new TabletServerServices.Admin(p.tablets(), p.raft(), p.channels(), p.clusterGuard(),
            deletes, p.hibernator()),
        new TabletCopyService(p.copySessions()));
  }

  /**
   * Peers' hibernate and wake requests get threads of their own: a request here that needs a
   * cold group holds a service thread until the group has a leader, which takes the peers'
   * wakes; with every service thread of every server so held (a burst of writes to cold
   * tablets) no wake could be served, and all would wait out their deadlines.
   */
  public static void giveLifecycleCallsOwnThreads(RpcServer rpc) {
    rpc.ownThreads("lifecycle", LIFECYCLE_RPC_THREADS, List.of(
        TabletServerAdminServiceGrpc.getWakeReplicaMethod(),
        // Never waits: a cold read's question must not queue behind service threads either.
        TabletServerAdminServiceGrpc.getConfirmHibernatedMethod(),
        // Not RequestHibernation: it may wait for a round that needs these threads.
        TabletServerAdminServiceGrpc.getHibernateReplicaMethod()));
  }
}
