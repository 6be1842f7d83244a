/**
 * Flush and compaction of tablet stores (docs/architecture.md, "Write path", step 10): the
 * per-store {@link io.nyala.tserver.tablet.maintenance.StoreMaintenance} that writes layers,
 * swaps them in and writes the superblock, the compaction it runs and the policy that picks it,
 * and the server-wide {@link io.nyala.tserver.tablet.maintenance.MaintenanceScheduler}. It
 * changes a store's in-memory state only through {@code StoreState}'s methods and its lifecycle
 * only through {@code StoreLifecycle}'s transitions; it must not apply rows or serve scans.
 */
package io.nyala.tserver.tablet.maintenance;
