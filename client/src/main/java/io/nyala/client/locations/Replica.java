package io.nyala.client.locations;

import io.nyala.common.HostPort;
import io.nyala.common.proto.RaftRolePB;

/**
 * One replica of a tablet as the master reported it.
 *
 * @param uuid the hosting tablet server's uuid
 * @param rpcAddress the tablet server's RPC address
 * @param role the replica's Raft role when the master last heard
 */
public record Replica(String uuid, HostPort rpcAddress, RaftRolePB role) {
  @Override
  public String toString() {
    return uuid + "@" + rpcAddress + "(" + role + ")";
  }
}
