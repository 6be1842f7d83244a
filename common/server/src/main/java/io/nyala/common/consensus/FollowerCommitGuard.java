package io.nyala.common.consensus;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;

/**
 * Keeps a follower from committing an entry its leader never matched (docs/architecture.md,
 * "A follower commits only what its leader matched"). Ratis (3.3) caps the commit index an
 * append request brings at its previous entry's index plus the entries it carries, but counts a
 * request without a previous entry (the leader's next index for the follower is 0) as if it had
 * one at index 0: a heartbeat then commits the follower's index 0, whatever term the follower
 * holds there. A follower whose index 0 came from another leader (two leaders of the first
 * terms each wrote one) commits it, refuses from then on to replace it (it is committed) and
 * never matches the leader again: the group runs on the other two, and loses its quorum when
 * either of those goes.
 *
 * <p>This interceptor on Ratis' listener lowers the commit index of such a request to the last
 * entry it carries (none for a heartbeat), which is what the follower holds from this leader
 * once it has appended them. Requests with a previous entry pass unchanged; Ratis checks those.
 */
public final class FollowerCommitGuard implements ServerInterceptor {
  private static final FollowerCommitGuard INSTANCE = new FollowerCommitGuard();
  private static final String APPEND_ENTRIES =
      RaftServerProtocolServiceGrpc.getAppendEntriesMethod().getFullMethodName();

  private FollowerCommitGuard() {}

  /**
   * Puts the guard on the listener of the Ratis server built with {@code parameters}, after
   * whatever services customizer they already hold.
   */
  public static void install(Parameters parameters) {
    GrpcServices.Customizer before = GrpcConfigKeys.Server.servicesCustomizer(parameters);
    GrpcConfigKeys.Server.setServicesCustomizer(parameters, (builder, types) ->
        (before == null ? builder : before.customize(builder, types)).intercept(INSTANCE));
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    ServerCall.Listener<Q> listener = next.startCall(call, headers);
    if (!APPEND_ENTRIES.equals(call.getMethodDescriptor().getFullMethodName())) {
      return listener;
    }
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      @Override
      @SuppressWarnings("unchecked")
      public void onMessage(Q message) {
        super.onMessage(message instanceof AppendEntriesRequestProto r ? (Q) guard(r) : message);
      }
    };
  }

  /**
   * {@code request} with a commit index the follower can trust: unchanged when it names a
   * previous entry, else at most its last entry's index (-1 for a heartbeat).
   */
  static AppendEntriesRequestProto guard(AppendEntriesRequestProto request) {
    if (request.hasPreviousLog()) {
      return request;
    }
    int n = request.getEntriesCount();
    long matched = n == 0 ? RaftLog.INVALID_LOG_INDEX : request.getEntries(n - 1).getIndex();
    if (request.getLeaderCommit() <= matched) {
      return request;
    }
    return request.toBuilder().setLeaderCommit(matched).build();
  }
}
