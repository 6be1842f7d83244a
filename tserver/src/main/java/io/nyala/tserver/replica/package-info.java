/**
 * The tablet replicas of this server and their lifecycle (docs/architecture.md, "Replica
 * lifecycle"): {@link io.nyala.tserver.replica.TabletManager}, a facade over one collaborator
 * per job — each tablet's metadata file, the replicas' Raft groups on the server's RaftServer,
 * recovery and orphan cleanup at start, create, delete — and
 * {@link io.nyala.tserver.replica.TabletReplica} with its {@link
 * io.nyala.tserver.replica.ReplicaState}, request admission and reports. Idle replicas hibernate
 * and wake here too (docs/dense-nodes.md).
 *
 * <p>RPC handlers and the server call in here; storage ({@code tablet}) and the Raft glue
 * ({@code consensus}) are used, never reached around, and nothing here calls back into the
 * handlers.
 */
package io.nyala.tserver.replica;
