/**
 * The tablet's Ratis state machine: decodes replicated entries, applies them to the
 * {@link io.nyala.tserver.tablet.TabletStore} and manages its snapshots, serves copy images and
 * asks a {@link io.nyala.tserver.consensus.TabletCopier} to rebuild the replica when the leader's
 * log cannot. Must stay deterministic:
 * every replica applies the same entries to the same result.
 */
package io.nyala.tserver.consensus;
