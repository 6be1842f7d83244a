/**
 * Benchmarks of the tablet server's own paths (WAL append, write path allocation), run on a
 * real single-replica tablet in a scratch directory. They print figures and never assert
 * timings; they must not change the code they measure.
 */
package io.nyala.tserver.bench;
