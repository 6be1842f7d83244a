/**
 * Fakes of the client's peers for tests: an in-memory cluster catalog, masters and tablet
 * servers that speak the real gRPC protocol on loopback ports, with hooks to inject failures.
 * They implement the protocol simply (rows in a sorted map, no Raft) but faithfully enough that
 * the client cannot tell, and record what they were sent for assertions.
 */
package io.nyala.client.fake;
