/**
 * The tablet's Ratis state machine: decodes replicated entries, applies them to the
 * {@link io.nyala.tserver.tablet.TabletStore} and manages its snapshots. Must stay deterministic:
 * every replica applies the same entries to the same result.
 */
package io.nyala.tserver.consensus;
