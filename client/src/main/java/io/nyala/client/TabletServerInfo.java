package io.nyala.client;

import io.nyala.common.HostPort;

/**
 * A tablet server as the leader master knows it: Kudu's {@code listTabletServers()} entry.
 *
 * @param uuid the server's permanent id
 * @param rpcAddress where clients call it
 * @param live whether the master heard its heartbeat recently enough to place replicas there
 * @param millisSinceHeartbeat how long ago its last heartbeat arrived
 * @param numReplicas the replicas the catalog places on it
 * @param numAwakeReplicas of its replicas as last reported, those with a Raft group open
 * @param numHibernatedReplicas of its replicas as last reported, the cold ones
 *     (docs/dense-nodes.md)
 */
public record TabletServerInfo(String uuid, HostPort rpcAddress, boolean live,
    long millisSinceHeartbeat, int numReplicas, int numAwakeReplicas,
    int numHibernatedReplicas) {}
