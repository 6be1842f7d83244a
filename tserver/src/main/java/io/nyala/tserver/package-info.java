/**
 * The tablet server: process wiring ({@link io.nyala.tserver.TabletServer}), flags, the tablet
 * lifecycle ({@link io.nyala.tserver.TabletManager}) and the RPC services. Storage lives in
 * {@code tablet}, the Raft glue in {@code consensus}; this package only routes requests to them.
 */
package io.nyala.tserver;
