package io.nyala.minicluster.cli;

/**
 * JVM options of the server processes a benchmark starts. The minicluster's servers stop at
 * C1 for a quick start (tests start many of them on few cores); a throughput or latency figure
 * needs what a deployment runs, the full JIT: C1 code is slower in every hot loop and has none
 * of C2's intrinsics for the JDK's AES, which encryption at rest uses (docs/performance.md,
 * "Server processes run the full JIT").
 */
final class BenchJvm {
  private BenchJvm() {}

  /** The option that undoes the minicluster's C1-only default; a later one overrides it. */
  static final String FULL_JIT = "-XX:TieredStopAtLevel=4";
}
