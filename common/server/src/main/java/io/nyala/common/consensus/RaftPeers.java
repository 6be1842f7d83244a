package io.nyala.common.consensus;

import io.nyala.common.HostPort;
import io.nyala.common.proto.RaftPeerPB;
import org.apache.ratis.protocol.RaftPeer;

/** Converts peers between Nyala's wire form and Ratis'. The RPC address rides in clientAddress. */
public final class RaftPeers {
  private RaftPeers() {}

  public static RaftPeer toRatis(RaftPeerPB pb) {
    return RaftPeer.newBuilder()
        .setId(RaftIds.peerId(pb.getUuid()))
        .setAddress(HostPort.fromPb(pb.getRaftAddress()).toString())
        .setClientAddress(HostPort.fromPb(pb.getRpcAddress()).toString())
        .build();
  }

  public static RaftPeerPB fromRatis(RaftPeer p) {
    RaftPeerPB.Builder b = RaftPeerPB.newBuilder().setUuid(p.getId().toString());
    if (p.getAddress() != null) {
      b.setRaftAddress(HostPort.parse(p.getAddress(), 0).toPb());
    }
    if (p.getClientAddress() != null) {
      b.setRpcAddress(HostPort.parse(p.getClientAddress(), 0).toPb());
    }
    return b.build();
  }

  /** The RPC address a peer carries, or null. */
  public static HostPort rpcAddress(RaftPeer p) {
    return p == null || p.getClientAddress() == null
        ? null : HostPort.parse(p.getClientAddress(), 0);
  }
}
