package io.nyala.common.consensus;

import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;

/**
 * Keeps a follower from committing an entry that a heartbeat never vouched for
 * (docs/architecture.md, "Consensus": "A heartbeat without a previous entry commits nothing").
 *
 * <p>Ratis (3.3.0) lets a follower take its commit index from an append-entries request as the
 * smaller of the leader's commit and the request's previous index plus its entry count, and
 * reads a request without a previous entry as if its previous index were 0. A heartbeat (no
 * entries) that a leader sends while it backs up to the start of a follower's log therefore
 * commits the follower's entry 0 unchecked. If that entry is a stale one (the first term's
 * leader wrote it and lost leadership before anyone took it), the follower commits what no
 * majority holds, and then refuses every later append from index 0 as "already committed"
 * while the leader's previous entry at 0 never matches: the follower never catches up.
 *
 * <p>This interceptor, on the Ratis server's listener, clears the leader commit of such
 * heartbeats (no entries, no previous entry) before Ratis reads them. That is always safe: a
 * heartbeat that names no previous entry proves nothing about the follower's log, so it may
 * not move its commit; the next append with entries carries the commit again, after the
 * follower's log has been matched. Such a heartbeat still resets the follower's election timer.
 */
public final class HeartbeatCommitGuard implements ServerInterceptor {
  /** The one instance; it holds no state. */
  public static final HeartbeatCommitGuard INSTANCE = new HeartbeatCommitGuard();

  private HeartbeatCommitGuard() {}

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
        next.startCall(call, headers)) {
      @Override
      public void onMessage(Q message) {
        super.onMessage(guard(message));
      }
    };
  }

  /** The message as Ratis should read it. */
  @SuppressWarnings("unchecked")
  static <Q> Q guard(Q message) {
    if (message instanceof AppendEntriesRequestProto r && unanchored(r)) {
      return (Q) r.toBuilder().setLeaderCommit(RaftLog.INVALID_LOG_INDEX).build();
    }
    return message;
  }

  /** A heartbeat that names no previous entry yet would move the follower's commit. */
  static boolean unanchored(AppendEntriesRequestProto r) {
    return r.getEntriesCount() == 0 && !r.hasPreviousLog()
        && r.getLeaderCommit() != RaftLog.INVALID_LOG_INDEX;
  }
}
