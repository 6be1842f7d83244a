/**
 * The tablet server: process wiring ({@link io.nyala.tserver.TabletServer}), flags and the RPC
 * services. Replicas and their lifecycle live in {@code replica}, storage in {@code tablet}, the
 * Raft glue in {@code consensus}; this package only routes requests to them.
 */
package io.nyala.tserver;
