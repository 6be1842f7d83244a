/**
 * The tablet server's RPC layer: the gRPC services ({@code TabletServerServices}) and one
 * handler per request that needs more than a line (Write, Scan, AlterSchema, ChangeConfig,
 * DeleteTablet). A handler validates the request, enters the replica through
 * {@code replica.TabletManager} and submits to that replica's own Raft division through
 * {@code common.consensus.RaftCalls} (docs/architecture.md, "Write path" and "Read path");
 * scans read the replica's store through {@code scan.ScannerManager}.
 *
 * <p>It must not open, create or delete stores, metadata or Raft groups itself (that is
 * {@code replica}'s job, asked through {@code TabletManager}), nor read server flags: the
 * limits it needs are handed to it when the server assembles it.
 */
package io.nyala.tserver.service;
