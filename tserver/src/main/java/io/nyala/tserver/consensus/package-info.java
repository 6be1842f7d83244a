/**
 * The tablet's Ratis state machine ({@link io.nyala.tserver.consensus.TabletStateMachine}, a thin
 * adapter) and its parts: applying replicated entries to the
 * {@link io.nyala.tserver.tablet.TabletStore}, reporting snapshots (the store's durable flush),
 * serving copy images and asking a {@link io.nyala.tserver.consensus.TabletCopier} to rebuild the
 * replica when the leader's log cannot (docs/architecture.md, "Write path" and "Tablet copy");
 * on the leader, putting concurrent writes into one entry ({@code WriteBatcher}) behind the
 * replicated retry table ({@code RetryTable}, {@code AppliedWrites}) that keeps them
 * exactly-once.
 * The parts see the store only through {@code TabletStore} and
 * {@link io.nyala.tserver.consensus.TabletStoreOpener}; only {@code BlockStoreOpener} knows the
 * block engine. Must stay deterministic: every replica applies the same entries to the same
 * result. Must not touch the store's files or blocks directly, nor the replica's lifecycle
 * (that is {@code tserver.replica}).
 */
package io.nyala.tserver.consensus;
