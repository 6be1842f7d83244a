package io.nyala.tserver.background;

import io.nyala.common.log.LogContext;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The thread pools a tablet server starts besides RPC and Raft, each bounded
 * (docs/dense-nodes.md, "The thread budget of awake replicas"). The caller owns each pool and
 * decides when, or whether, to shut it down.
 */
public final class ServerPools {
  /** Threads of the maintenance pool (docs/dense-nodes.md). */
  public static final int MAINTENANCE_THREADS = 2;
  /** Threads handling the answers to this server's HibernateReplica and WakeReplica calls. */
  public static final int PEER_CALLBACK_THREADS = 2;

  private ServerPools() {}

  /**
   * One small pool for every periodic task of the server (docs/dense-nodes.md): two threads, so
   * a long flush or compaction never holds up the scanner and session sweep.
   */
  public static ScheduledExecutorService maintenance(String server) {
    return Executors.newScheduledThreadPool(MAINTENANCE_THREADS,
        LogContext.threadFactory(server, "maintenance"));
  }

  /**
   * Hibernation rounds, which wait for followers' answers. Its threads go when idle: a server
   * whose replicas are all cold or all busy keeps none.
   */
  public static ThreadPoolExecutor hibernationRounds(String server) {
    return shrinking(2, 60, server, "hibernation");
  }

  /**
   * Answers to this server's HibernateReplica and WakeReplica calls. Not to be shut down with
   * the server: answers of calls still in flight when the channels close arrive after that, and
   * a shut-down pool would refuse them (gRPC logs each refusal). Its threads end once idle.
   */
  public static ThreadPoolExecutor peerCallbacks(String server) {
    return shrinking(PEER_CALLBACK_THREADS, 10, server, "peer-calls");
  }

  /**
   * Write entries submitted once an earlier entry of their tablet was applied (the writes
   * queued behind it, docs/architecture.md, "Write path"), so that Ratis' apply thread does not
   * submit them. Never shut down: an entry answered while the server stops still drains its
   * queue (Ratis refuses it); its threads end once idle.
   */
  public static ThreadPoolExecutor writeBatches(String server) {
    return shrinking(2, 10, server, "write-batches");
  }

  /**
   * Tablet copies, apart from the maintenance pool: a copy blocks on the network for as long as
   * it takes. Its threads go when idle, so a server that copies nothing keeps none.
   */
  public static ThreadPoolExecutor tabletCopies(String server) {
    return shrinking(2, 60, server, "tablet-copy");
  }

  private static ThreadPoolExecutor shrinking(int threads, long keepAliveSeconds, String server,
      String purpose) {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, keepAliveSeconds,
        TimeUnit.SECONDS, new LinkedBlockingQueue<>(), LogContext.threadFactory(server, purpose));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
