/**
 * What a tablet server exports as server-wide metrics ({@code ServerGauges}): gauges over the
 * replicas, scanners, copy sessions, store maintenance and the block manager, registered once
 * at start. Names follow Prometheus naming. It only reads the owners' narrow accessors; it
 * must not take their locks or change their state. Counters that a component increments itself
 * (a handler's rows written) are registered by that component.
 */
package io.nyala.tserver.metrics;
