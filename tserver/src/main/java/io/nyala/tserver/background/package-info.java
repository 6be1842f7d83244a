/**
 * The tablet server's own background threads: the pools it starts ({@code ServerPools}), each
 * bounded and most shrinking to nothing when idle, and the periodic tasks it runs on the
 * maintenance pool ({@code PeriodicTasks}). Their sizes are the server's share of the thread
 * budget in docs/dense-nodes.md, "The thread budget of awake replicas". It only schedules work
 * that the owners ({@code scan}, {@code copy}, {@code replica}, the stores) expose; it must
 * not hold their state or decide what they do.
 */
package io.nyala.tserver.background;
