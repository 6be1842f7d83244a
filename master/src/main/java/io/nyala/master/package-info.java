/**
 * The master server: flags, process entry point, the gRPC {@code MasterService}, heartbeat
 * handling and status pages. It wires the catalog, the tserver registry, placement and locations
 * together; it must not touch another server's files or the tservers' internals.
 */
package io.nyala.master;
