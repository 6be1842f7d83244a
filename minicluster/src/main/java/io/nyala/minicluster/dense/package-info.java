/**
 * Dense-node tooling shared by {@code nyala bench dense-node} and the dense-node integration
 * tests: many small hash-partitioned tables on a minicluster, the replica states its tablet
 * servers and master report, and a server process's footprint read from {@code /proc}. Reads
 * only through public RPCs, web pages and {@code /proc}; never reaches into a server object.
 */
package io.nyala.minicluster.dense;
