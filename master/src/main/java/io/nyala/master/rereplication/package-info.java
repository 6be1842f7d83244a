/**
 * Re-replication: replaces the replicas of tablet servers that stopped heartbeating. Owns only
 * its in-flight moves; changes the catalog through the sys catalog's writes and the tablets
 * through the tservers' admin RPCs. Must not decide liveness (the TS manager does).
 */
package io.nyala.master.rereplication;
