package io.nyala.common.fault;

import java.util.EnumSet;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCall;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;

/**
 * The partition filter of Ratis' listener (docs/testing.md, "Network partitions"). Ratis' peers
 * send no header we could set, but every server-to-server request (append entries, votes,
 * snapshot installs, elections, read index) names its sender's peer id, which is the server's
 * uuid ({@code RaftIds.peerId}). A request from a peer {@link NetworkFaults} cuts off is not
 * passed on: its call (for append entries, the whole stream) ends with UNAVAILABLE, so the sender
 * sees an unreachable peer; whatever Ratis later sends on that call is dropped. Replies travel
 * only on requests, so dropping the request cuts both directions of that exchange.
 *
 * <p>Requests of Ratis' client and admin services (from clients, not peers) always pass.
 */
public final class RaftPartitionFilter implements GrpcServices.Customizer, ServerInterceptor {
  private final NetworkFaults faults;

  private RaftPartitionFilter(NetworkFaults faults) {
    this.faults = faults;
  }

  /** Makes the Ratis server built with {@code parameters} filter by {@code faults}. */
  public static void install(Parameters parameters, NetworkFaults faults) {
    GrpcConfigKeys.Server.setServicesCustomizer(parameters, new RaftPartitionFilter(faults));
  }

  @Override
  public NettyServerBuilder customize(NettyServerBuilder builder,
      EnumSet<GrpcServices.Type> types) {
    return builder.intercept(this);
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    CuttableCall<Q, A> cuttable = new CuttableCall<>(call);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
        next.startCall(cuttable, headers)) {
      @Override
      public void onMessage(Q message) {
        if (cuttable.isCut()) {
          return;
        }
        String sender = faults.blocked().isEmpty() ? null : sender(message);
        if (faults.cutsOff(sender)) {
          cuttable.cut(faults.drop(sender));
          // Ratis' handler must learn the stream is gone (it learns nothing from a close it did
          // not make): as if the sender cancelled. The transport's own end is swallowed below.
          super.onCancel();
          return;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        if (!cuttable.isCut()) {
          super.onHalfClose();
        }
      }

      @Override
      public void onCancel() {
        if (!cuttable.isCut()) {
          super.onCancel();
        }
      }

      @Override
      public void onComplete() {
        if (!cuttable.isCut()) {
          super.onComplete();
        }
      }
    };
  }

  /** The peer id (= server uuid) of a server-to-server request's sender, or null. */
  static String sender(Object message) {
    RaftRpcRequestProto r;
    if (message instanceof AppendEntriesRequestProto m) {
      r = m.getServerRequest();
    } else if (message instanceof RequestVoteRequestProto m) {
      r = m.getServerRequest();
    } else if (message instanceof InstallSnapshotRequestProto m) {
      r = m.getServerRequest();
    } else if (message instanceof StartLeaderElectionRequestProto m) {
      r = m.getServerRequest();
    } else if (message instanceof ReadIndexRequestProto m) {
      r = m.getServerRequest();
    } else {
      return null;
    }
    return RaftPeerId.valueOf(r.getRequestorId()).toString();
  }

  /**
   * A call this filter may end on Ratis' behalf: once cut, what Ratis sends or closes on it is
   * dropped, since gRPC refuses a second close. Synchronized, as Ratis answers from its own
   * threads while the cut comes from the transport's.
   */
  private static final class CuttableCall<Q, A>
      extends ForwardingServerCall.SimpleForwardingServerCall<Q, A> {
    /** Ended by this filter. */
    private boolean cut;
    /** Ended by anyone. */
    private boolean closed;

    CuttableCall(ServerCall<Q, A> delegate) {
      super(delegate);
    }

    synchronized boolean isCut() {
      return cut;
    }

    synchronized void cut(String why) {
      if (!closed) {
        cut = true;
        closed = true;
        super.close(Status.UNAVAILABLE.withDescription(why), new Metadata());
      }
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!closed) {
        super.sendHeaders(headers);
      }
    }

    @Override
    public synchronized void sendMessage(A message) {
      if (!closed) {
        super.sendMessage(message);
      }
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      if (!closed) {
        closed = true;
        super.close(status, trailers);
      }
    }
  }
}
