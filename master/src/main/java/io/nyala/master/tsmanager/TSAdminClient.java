package io.nyala.master.tsmanager;

import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.common.proto.tserver.AlterSchemaResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.CreateTabletResponsePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.UnaryObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The master's calls to a tserver's admin service. Every call is asynchronous with a deadline;
 * the future fails with the tserver's error (or the transport's) and never blocks the caller.
 * Calls that change a tserver's state carry this cluster's id, so a tserver of another cluster
 * refuses them (docs/data-safety.md, "Deletes").
 */
public final class TSAdminClient {
  /** Extra time given to a call beyond the wait it asks the tserver for (timeout_ms). */
  private static final long DEADLINE_MARGIN_MS = 5_000;

  private final Channels channels;
  private final long deadlineMs;
  /** This cluster's id, read at each call (empty until the catalog has one). */
  private volatile Supplier<String> clusterId = () -> "";

  public TSAdminClient(Channels channels, long deadlineMs) {
    this.channels = channels;
    this.deadlineMs = deadlineMs;
  }

  /** Where the calls read the cluster id they carry (the catalog's). */
  public void setClusterId(Supplier<String> clusterId) {
    this.clusterId = clusterId;
  }

  public CompletableFuture<Void> createTablet(HostPort tserver, CreateTabletRequestPB req) {
    CompletableFuture<CreateTabletResponsePB> f = new CompletableFuture<>();
    CreateTabletRequestPB sent = req.toBuilder().setClusterId(clusterId.get()).build();
    detached(() -> stub(tserver).createTablet(sent, observer(f, tserver)));
    return f.thenApply(r -> check(r.hasError() ? r.getError() : null));
  }

  /**
   * Deletes a replica; {@code req} says why positively (tablet_dropped, or cas_config_index:
   * see docs/data-safety.md).
   */
  public CompletableFuture<Void> deleteTablet(HostPort tserver, DeleteTabletRequestPB req) {
    CompletableFuture<DeleteTabletResponsePB> f = new CompletableFuture<>();
    DeleteTabletRequestPB sent = req.toBuilder().setClusterId(clusterId.get()).build();
    detached(() -> stub(tserver).deleteTablet(sent, observer(f, tserver)));
    return f.thenApply(r -> check(r.hasError() ? r.getError() : null));
  }

  /** Replicates a schema change on the tablet's leader; completes with its schema version. */
  public CompletableFuture<Integer> alterSchema(HostPort tserver, AlterSchemaRequestPB req) {
    CompletableFuture<AlterSchemaResponsePB> f = new CompletableFuture<>();
    AlterSchemaRequestPB sent = req.toBuilder().setClusterId(clusterId.get()).build();
    detached(() -> stub(tserver).alterSchema(sent, observer(f, tserver)));
    return f.thenApply(r -> {
      check(r.hasError() ? r.getError() : null);
      return r.getSchemaVersion();
    });
  }

  /** Changes the tablet's Raft configuration on its leader; completes with the new peers. */
  public CompletableFuture<ChangeConfigResponsePB> changeConfig(HostPort tserver,
      ChangeConfigRequestPB req) {
    CompletableFuture<ChangeConfigResponsePB> f = new CompletableFuture<>();
    ChangeConfigRequestPB sent = req.toBuilder().setClusterId(clusterId.get()).build();
    // The call outlives the wait it asks for, so the answer (often a commit) is not lost.
    long deadline = Math.max(deadlineMs, req.getTimeoutMs() + DEADLINE_MARGIN_MS);
    detached(() -> stub(tserver, deadline).changeConfig(sent, observer(f, tserver)));
    return f.thenApply(r -> {
      check(r.hasError() ? r.getError() : null);
      return r;
    });
  }

  /**
   * Calls {@code first}; when it answers NOT_LEADER naming another server, calls that one once.
   * A replica of a hibernated tablet wakes its group and answers so (docs/dense-nodes.md).
   * Other failures, and a second NOT_LEADER, are for the caller's next pass.
   */
  public static <T> CompletableFuture<T> followingLeaderHint(HostPort first,
      Function<HostPort, CompletableFuture<T>> call) {
    return call.apply(first).exceptionallyCompose(t -> {
      NyalaException e = NyalaException.from(t);
      HostPort hint = e.code() == StatusCode.NOT_LEADER ? e.leaderRpcAddress() : null;
      return hint != null && !hint.equals(first) ? call.apply(hint)
          : CompletableFuture.failedFuture(e);
    });
  }

  /**
   * Starts a call outside the current gRPC context: calls made while serving an RPC would
   * otherwise be cancelled as soon as that RPC's handler returns.
   */
  private static void detached(Runnable call) {
    Context.ROOT.run(call);
  }

  private TabletServerAdminServiceGrpc.TabletServerAdminServiceStub stub(HostPort addr) {
    return stub(addr, deadlineMs);
  }

  private TabletServerAdminServiceGrpc.TabletServerAdminServiceStub stub(HostPort addr,
      long callDeadlineMs) {
    return TabletServerAdminServiceGrpc.newStub(channels.get(addr))
        .withDeadlineAfter(callDeadlineMs, TimeUnit.MILLISECONDS);
  }

  private static Void check(ErrorPB error) {
    if (NyalaException.isError(error)) {
      throw NyalaException.fromPb(error);
    }
    return null;
  }

  private static <T> StreamObserver<T> observer(CompletableFuture<T> f, HostPort tserver) {
    return UnaryObserver.completing(f, "tablet server " + tserver,
        t -> NyalaException.unavailable("%s", t.getMessage()));
  }
}
