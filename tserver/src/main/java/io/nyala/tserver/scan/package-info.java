/**
 * Server-side scanners: their registry with a TTL and paging at a fixed MVCC snapshot. A scanner
 * pins its snapshot in the {@link io.nyala.tserver.tablet.TabletStore} until it is closed or
 * expires, so the row versions it needs survive. Knows nothing of RPC or Raft.
 */
package io.nyala.tserver.scan;
