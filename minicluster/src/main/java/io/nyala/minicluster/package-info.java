/**
 * The minicluster: a whole Nyala cluster in one JVM for local use and tests, and its JUnit 5
 * extension. {@code MiniCluster} is the facade; {@code ClusterSettings} (its builder's setters),
 * {@code ClusterLayout} (each server's directory, address and flags), {@code ServerGroup} (the
 * servers of one role), {@code ServerNode} (one server, in-process or external),
 * {@code NetworkPartitions} (the injected network partitions, see docs/testing.md) and
 * {@code LeaderProbe} (which master serves) do the work, with {@code ClusterTls} (the CA, server
 * certificates, the harness's own certificate and the channels of a TLS cluster), {@code
 * ClusterUsers} (the user its clients authenticate as) and
 * {@code ClusterClients} (the clients it hands out); {@code ClusterTablets} (reached as
 * {@code cluster.tablets()}) answers tests' questions about tablets over RPC only, with
 * {@code TabletView}, {@code QuorumWait} and {@code RemoteWait}. {@code NyalaCluster} declares a
 * test's cluster for {@code MiniClusterExtension}, which keeps clusters by their
 * {@code ClusterSpec} (per method, per class or shared across classes) and finds declarations
 * through {@code ClusterDeclarations}. Owns server lifecycles and addresses; never reaches into
 * server internals beyond handing tests the server objects (and resizing an in-process master's
 * locations cache, the one flag that changes at run time).
 */
package io.nyala.minicluster;
