/**
 * A tablet's storage engine behind {@link io.nyala.tserver.tablet.TabletStore}: applying row
 * operations tagged with their Raft index (MVCC), snapshot scans, the block-based store
 * ({@link io.nyala.tserver.tablet.BlockTabletStore}), schema changes
 * ({@link io.nyala.tserver.tablet.TabletSchemaChange}), and the image a tablet copy sends
 * ({@link io.nyala.tserver.tablet.image}).
 * It knows nothing of Ratis or RPC; the state machine in {@code consensus} drives it.
 */
package io.nyala.tserver.tablet;
