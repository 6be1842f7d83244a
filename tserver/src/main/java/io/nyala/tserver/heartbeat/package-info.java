/**
 * Heartbeats to the leader master with full or incremental tablet reports. Reads tablet state;
 * never changes it.
 */
package io.nyala.tserver.heartbeat;
