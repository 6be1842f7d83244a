package io.nyala.common.consensus;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.ResourceUnavailableException;
import org.apache.ratis.protocol.exceptions.SetConfigurationException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Calls into the server's own RaftServer, in-process (no network client), and the mapping of
 * Ratis' failures onto Nyala's status codes: not leader → NOT_LEADER with the suggested leader's
 * RPC address, back-pressure and elections → SERVICE_UNAVAILABLE (retriable).
 */
public final class RaftCalls {
  private RaftCalls() {}

  /**
   * Replicates {@code payload} as one entry of group {@code gid}; completes with the reply
   * message.
   */
  public static CompletableFuture<ByteString> write(RaftServer server, RaftGroupId gid,
      ClientId clientId, long callId, ByteString payload) {
    return write(server, gid, clientId, callId, payload, List.of());
  }

  /**
   * {@link #write}, also telling the leader that the client has the answers to
   * {@code repliedCallIds} and will not retry them: Ratis drops them from its retry cache.
   */
  public static CompletableFuture<ByteString> write(RaftServer server, RaftGroupId gid,
      ClientId clientId, long callId, ByteString payload, Iterable<Long> repliedCallIds) {
    RaftClientRequest req = request(server, gid, clientId, callId, Message.valueOf(payload),
        RaftClientRequest.writeRequestType()).setRepliedCallIds(repliedCallIds).build();
    return submit(server, gid, req);
  }

  /** A linearizable read through the group's state machine {@code query}. */
  public static CompletableFuture<ByteString> read(RaftServer server, RaftGroupId gid,
      ByteString query) {
    return submit(server, gid, ClientId.randomId(), 0, Message.valueOf(query),
        RaftClientRequest.readRequestType());
  }

  /**
   * Asks the group's leader on this server to hand leadership to {@code newLeader}; completes
   * once the new leader has taken over, fails with NOT_LEADER if this replica does not lead.
   */
  public static CompletableFuture<Void> transferLeadership(RaftServer server, RaftGroupId gid,
      RaftPeerId newLeader, long timeoutMs) {
    TransferLeadershipRequest req = new TransferLeadershipRequest(ClientId.randomId(),
        server.getId(), gid, 0, newLeader, timeoutMs);
    return call(gid, () -> server.transferLeadershipAsync(req)).thenApply(reply -> null);
  }

  /**
   * Takes a snapshot of the group now (blocking up to {@code timeoutMs}) and returns its log
   * index. For tools and tests; Ratis snapshots on its own only past its threshold.
   */
  public static long snapshotNow(RaftServer server, RaftGroupId gid, long timeoutMs) {
    // Creation gap 1: by default Ratis ignores a request until 1024 entries since the last one.
    SnapshotManagementRequest req = SnapshotManagementRequest.newCreate(ClientId.randomId(),
        server.getId(), gid, 0, timeoutMs, 1);
    try {
      return call(gid, () -> server.snapshotManagementAsync(req))
          .get(timeoutMs + 5_000, TimeUnit.MILLISECONDS).getLogIndex();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("interrupted while snapshotting group %s", gid);
    } catch (ExecutionException | TimeoutException e) {
      throw translate(e.getCause() != null ? e.getCause() : e, gid);
    }
  }

  /**
   * Replaces the group's voters {@code current} by {@code next} in one COMPARE_AND_SET
   * {@code setConfiguration} on the leader here: Ratis refuses if the configuration no longer
   * equals {@code current}, stages new peers until they caught up, and completes the future
   * once the new configuration has committed.
   */
  public static CompletableFuture<Void> setConfiguration(RaftServer server, RaftGroupId gid,
      List<RaftPeer> current, List<RaftPeer> next) {
    SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
        .setServersInCurrentConf(current)
        .setServersInNewConf(next)
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
        .build();
    SetConfigurationRequest req = new SetConfigurationRequest(ClientId.randomId(),
        server.getId(), gid, 0, args);
    return call(gid, () -> server.setConfigurationAsync(req)).thenApply(reply -> null);
  }

  public static CompletableFuture<ByteString> submit(RaftServer server, RaftGroupId gid,
      ClientId clientId, long callId, Message msg, RaftClientRequest.Type type) {
    return submit(server, gid, request(server, gid, clientId, callId, msg, type).build());
  }

  private static RaftClientRequest.Builder request(RaftServer server, RaftGroupId gid,
      ClientId clientId, long callId, Message msg, RaftClientRequest.Type type) {
    return RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(server.getId())
        .setGroupId(gid)
        .setCallId(callId)
        .setMessage(msg)
        .setType(type);
  }

  private static CompletableFuture<ByteString> submit(RaftServer server, RaftGroupId gid,
      RaftClientRequest req) {
    return call(gid, () -> clientProtocol(server, gid).submitClientRequestAsync(req))
        .thenApply(reply -> reply.getMessage().getContent());
  }

  /**
   * The group's division itself as the protocol to submit to, so that the request is started on
   * the caller's thread. Through the server, Ratis hands each request to its client executor and
   * blocks the caller until that thread returned the future: two context switches and two futex
   * calls per write that buy no concurrency.
   */
  private static RaftClientAsynchronousProtocol clientProtocol(RaftServer server,
      RaftGroupId gid) throws IOException {
    return server.getDivision(gid) instanceof RaftClientAsynchronousProtocol p ? p : server;
  }

  /** A call into the local RaftServer that may throw before it returns a future. */
  @FunctionalInterface
  private interface RaftCall {
    CompletableFuture<RaftClientReply> start() throws IOException;
  }

  /** Runs a call; its future fails with the translated error unless the reply is a success. */
  private static CompletableFuture<RaftClientReply> call(RaftGroupId gid, RaftCall c) {
    CompletableFuture<RaftClientReply> f;
    try {
      f = c.start();
    } catch (IOException | RuntimeException e) {
      // Started on the caller's thread, a call may also throw unchecked: it fails the future
      // as it did when Ratis ran it on its own executor, never the caller.
      return CompletableFuture.failedFuture(translate(e, gid));
    }
    return f.handle((reply, t) -> {
      if (t != null) {
        throw translate(t, gid);
      }
      if (!reply.isSuccess()) {
        throw translate(reply.getException(), gid);
      }
      return reply;
    });
  }

  /** Ratis' exceptions as NyalaExceptions. */
  public static NyalaException translate(Throwable t, RaftGroupId gid) {
    Throwable c = t;
    while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof NyalaException ne) {
      return ne;
    }
    String what = "tablet " + RaftIds.tabletId(gid);
    if (c instanceof NotLeaderException nle) {
      RaftPeer leader = nle.getSuggestedLeader();
      HostPort addr = RaftPeers.rpcAddress(leader);
      return NyalaException.notLeader(what + ": not the leader",
          leader == null ? "" : leader.getId().toString(), addr);
    }
    if (c instanceof LeaderNotReadyException || c instanceof LeaderSteppingDownException) {
      return new NyalaException(StatusCode.SERVICE_UNAVAILABLE,
          what + ": leader not ready: " + c.getMessage(), c);
    }
    if (c instanceof ResourceUnavailableException) {
      return new NyalaException(StatusCode.SERVICE_UNAVAILABLE,
          what + ": too many pending writes (back-pressure), retry later", c);
    }
    if (c instanceof StateMachineException && c.getCause() != null) {
      return NyalaException.from(c.getCause());
    }
    if (c instanceof GroupMismatchException) {
      return new NyalaException(StatusCode.NOT_FOUND, what + " not found on this server", c);
    }
    if (c instanceof AlreadyClosedException) {
      return new NyalaException(StatusCode.SERVICE_UNAVAILABLE,
          what + ": closed: " + c.getMessage(), c);
    }
    if (c instanceof SetConfigurationException) {
      // A compare-and-set that lost a race with another change: the caller re-reads the config.
      return new NyalaException(StatusCode.ILLEGAL_STATE,
          what + ": configuration change refused: " + c.getMessage(), c);
    }
    if (c instanceof RaftException) {
      return new NyalaException(StatusCode.SERVICE_UNAVAILABLE, what + ": " + c.getMessage(), c);
    }
    return NyalaException.from(c);
  }
}
