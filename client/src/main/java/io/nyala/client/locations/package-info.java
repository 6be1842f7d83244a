/**
 * Where tablets live, as the client believes: a per-table cache of tablet locations keyed by
 * partition key (filled from the master's GetTableLocations and dropped when a tablet server
 * proves it stale), and {@link io.nyala.client.locations.TabletCaller}, the retry loop that sends
 * a tablet RPC to the tablet's leader.
 *
 * <p>Knows nothing of rows or scans: callers hand in the request to send.
 */
package io.nyala.client.locations;
