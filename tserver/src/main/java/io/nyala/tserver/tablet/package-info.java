/**
 * A tablet's storage engine behind {@link io.nyala.tserver.tablet.TabletStore}: applying row
 * operations tagged with their Raft index (MVCC), snapshot scans and snapshot files. It knows
 * nothing of Ratis or RPC; the state machine in {@code consensus} drives it.
 */
package io.nyala.tserver.tablet;
