package io.nyala.minicluster;

import java.util.concurrent.CompletableFuture;

/** Closing a minicluster at JVM exit. */
public final class ShutdownClose {
  private ShutdownClose() {}

  /**
   * Closes {@code cluster} when the JVM shuts down (Ctrl-C, SIGTERM, {@code System.exit}), as
   * {@link MiniCluster#close()} does: server processes get SIGTERM and stop cleanly. The
   * minicluster's last resort against orphaned server processes, a hook that SIGKILLs those
   * still running, waits for this close (up to 90 s) instead of killing them under it. A
   * failure of the close is printed to standard error.
   *
   * @param cluster the cluster to close
   * @param before runs in the hook first (say, to tell the user the cluster is stopping)
   * @param after runs in the hook once the cluster is closed, even if closing it failed
   */
  public static void register(MiniCluster cluster, Runnable before, Runnable after) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    ExternalProcess.reaperWaitsFor(done);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        before.run();
        cluster.close();
      } catch (RuntimeException e) {
        System.err.println("closing the minicluster: " + e.getMessage());
      } finally {
        after.run();
        done.complete(null);
      }
    }, "minicluster-close-on-shutdown"));
  }
}
