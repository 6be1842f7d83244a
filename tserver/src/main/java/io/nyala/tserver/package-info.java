/**
 * The tablet server's assembly: its flags ({@link io.nyala.tserver.TserverOptions}), the
 * process entry point and {@link io.nyala.tserver.TabletServer}, which opens the parts in order
 * and closes them in reverse. The parts live in sub-packages: RPC handlers in {@code service},
 * pages in {@code web}, gauges in {@code metrics}, thread pools and periodic tasks in
 * {@code background}, replicas and their lifecycle in {@code replica}, storage in
 * {@code tablet}, the Raft glue in {@code consensus}. Nothing here serves a request itself.
 */
package io.nyala.tserver;
