/**
 * The client's own counters ({@link io.nyala.client.stats.ClientCounters}): what its write,
 * scan and tablet RPC paths did, updated on those paths and read as a snapshot through
 * {@code NyalaClient.getStatistics()} (docs/architecture.md, "Client statistics").
 *
 * <p>Not API. Knows nothing of the rest of the client, so that the root package and
 * {@code io.nyala.client.locations} can both update it.
 */
package io.nyala.client.stats;
