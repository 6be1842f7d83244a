/**
 * The tablet replicas of this server and their lifecycle: metadata on disk, the Raft group of
 * each replica, create, delete, failure and (see docs/dense-nodes.md) hibernation. RPC handlers
 * in the parent package call in here; storage ({@code tablet}) and the Raft glue
 * ({@code consensus}) are used, never reached around.
 */
package io.nyala.tserver.replica;
