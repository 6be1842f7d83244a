/**
 * Calls to the leader master: finds it among the configured masters, follows NOT_LEADER hints,
 * skips unreachable masters and retries with backoff until the caller's deadline.
 *
 * <p>Knows nothing of what the calls mean; DDL and location lookups are built on it elsewhere.
 */
package io.nyala.client.master;
