/**
 * Fault injection for tests. Crash points: named points a server halts at, with a configured
 * probability, so a crash test lands exactly where it means to (Kudu's {@code --fault_crash_*}
 * flags); owns only the decision and the halt, which points exist is declared by the code that
 * calls them. Network partitions: the set of servers one server does not hear from
 * ({@code NetworkFaults}) and the inbound filters that enforce it on Nyala's RPC and on Ratis'
 * listener (docs/testing.md, "Network partitions"); owns no transport, only interceptors handed
 * to one. Never turned on in production.
 */
package io.nyala.common.fault;
