package io.nyala.minicluster;

/** How a minicluster runs its servers. */
public enum ProcessMode {
  /** Every server in this JVM (default): fastest to start, easiest to debug. */
  IN_PROCESS,
  /**
   * Every server in its own JVM on this JVM's classpath: servers can be SIGKILLed, paused
   * (SIGSTOP) and resumed (SIGCONT) like real deployments.
   */
  EXTERNAL
}
