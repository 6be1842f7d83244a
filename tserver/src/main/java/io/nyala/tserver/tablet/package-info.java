/**
 * A tablet's storage engine behind {@link io.nyala.tserver.tablet.TabletStore}: applying row
 * operations tagged with their Raft index (MVCC), snapshot scans, the block-based store
 * ({@link io.nyala.tserver.tablet.BlockTabletStore}) whose in-memory state has one owner
 * ({@link io.nyala.tserver.tablet.StoreState}, the only holder of its lock) and whose lifecycle
 * is {@link io.nyala.tserver.tablet.StoreLifecycle}, and schema changes
 * ({@link io.nyala.tserver.tablet.TabletSchemaChange}). Flush and compaction are in
 * {@code tablet.maintenance}, the tablet copy image in {@code tablet.image}, layers and their
 * page format in {@code tablet.rowset} and {@code tablet.cfile}. It knows nothing of Ratis or
 * RPC; the state machine in {@code consensus} drives it.
 */
package io.nyala.tserver.tablet;
