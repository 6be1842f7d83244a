/**
 * Fault injection for tests: named crash points a server halts at, with a configured
 * probability, so a crash test lands exactly where it means to (Kudu's {@code --fault_crash_*}
 * flags). Owns only the decision and the halt; which points exist is declared by the code that
 * calls them. Never turned on in production.
 */
package io.nyala.common.fault;
