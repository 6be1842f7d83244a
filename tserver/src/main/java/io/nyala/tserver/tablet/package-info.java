/**
 * A tablet's storage engine behind {@link io.nyala.tserver.tablet.TabletStore}: applying row
 * operations tagged with their Raft index (MVCC), snapshot scans and snapshot files, schema
 * changes ({@link io.nyala.tserver.tablet.SchemaChange}), and the image a tablet copy sends
 * ({@link io.nyala.tserver.tablet.TabletImage}, {@link io.nyala.tserver.tablet.TabletImageInstaller}).
 * It knows nothing of Ratis or RPC; the state machine in {@code consensus} drives it.
 */
package io.nyala.tserver.tablet;
