package io.nyala.common.consensus;

import io.nyala.common.HostPort;
import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Ratis properties of one server (they apply to every division it hosts, so they are sized
 * for many small groups: docs/dense-nodes.md, "The thread budget of awake replicas"). Ratis'
 * metrics need no setting here: they go to Nyala's own implementation of Ratis' metrics SPI
 * ({@code common.metrics.ratis.RatisRegistries}), which has no JMX (docs/dense-nodes.md,
 * "Ratis' metrics stay out of JMX").
 */
public final class RaftSettings {
  private RaftSettings() {}

  /**
   * Properties for a server storing its Raft state under {@code storageDir} and listening on
   * {@code bind}. {@code overrides} are raw Ratis keys applied last.
   */
  public static RaftProperties forServer(File storageDir, HostPort bind, long electionMinMs,
      long electionMaxMs, Map<String, String> overrides) {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    RaftServerConfigKeys.setStorageDir(p, List.of(storageDir));
    GrpcConfigKeys.Server.setHost(p, bind.host());
    GrpcConfigKeys.Server.setPort(p, bind.port());

    RaftServerConfigKeys.Rpc.setTimeoutMin(p,
        TimeDuration.valueOf(electionMinMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p,
        TimeDuration.valueOf(electionMaxMs, TimeUnit.MILLISECONDS));
    // A group's first election need not wait a whole timeout: nothing can be leading yet after
    // a create or a wake from hibernation, and a quick leader makes starts fast. The wait
    // dominates the first write to a cold tablet (docs/dense-nodes.md, "Wake"): at 200-500 ms
    // it took 340 ms at the median, at 30-100 ms 110 ms. Pre-vote (Ratis' default) keeps a
    // restarted follower that fires early from disturbing a group that still has a leader.
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p,
        TimeDuration.valueOf(Math.max(30, electionMinMs / 30), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p,
        TimeDuration.valueOf(Math.max(100, electionMinMs / 10), TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));

    // Density: small buffers and caches per division.
    RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf((1 << 20) + 8));
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(1 << 20));
    RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf(64 << 10));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(8 << 20));
    RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, 2);
    RaftServerConfigKeys.Log.setSegmentCacheSizeMax(p, SizeInBytes.valueOf(16 << 20));
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
    RaftServerConfigKeys.Snapshot.setTriggerWhenRemoveEnabled(p, false);
    // A snapshot bounds the log even while a follower is down: it catches up by a copy instead.
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);

    boundThreadPools(p);

    // Reads: linearizable, served under the leader lease (a deposed leader never answers).
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);

    for (Map.Entry<String, String> e : overrides.entrySet()) {
      p.set(e.getKey(), e.getValue());
    }
    return p;
  }

  /**
   * Ratis' unbounded thread pools, bounded (docs/dense-nodes.md). At its defaults
   * ({@code cached=true}, size 0) each is {@code Executors.newCachedThreadPool}: one thread per
   * concurrent task. The per-division pools (server: follower appends, leader transfer,
   * configuration changes; client: requests over Ratis' client RPC, which tablet servers do not
   * use) stay "cached" with a size: Ratis then builds a pool with no core thread and an
   * unbounded queue, which runs at most one thread and lets it go after 60 s idle, so a quiet
   * division keeps none. The server-wide pool recovers, starts and closes all divisions at once:
   * a fixed pool, so a restart with thousands of groups does not start a thread per group.
   */
  static void boundThreadPools(RaftProperties p) {
    RaftServerConfigKeys.ThreadPool.setServerCached(p, true);
    RaftServerConfigKeys.ThreadPool.setServerSize(p, 1);
    RaftServerConfigKeys.ThreadPool.setClientCached(p, true);
    RaftServerConfigKeys.ThreadPool.setClientSize(p, 1);
    RaftServerConfigKeys.ThreadPool.setProxyCached(p, false);
    RaftServerConfigKeys.ThreadPool.setProxySize(p, PROXY_THREADS);
    // Ratis' client-protocol request pool is already "cached" with a size (one thread at most).
    GrpcConfigKeys.Server.setAsyncRequestThreadPoolCached(p, true);
    // Off by default, said here because it would add a flush thread per division (as does
    // unsafe flush, which only benchmarks set, through --raft_property).
    RaftServerConfigKeys.Log.setAsyncFlushEnabled(p, false);
  }

  /**
   * Threads that recover, start and close divisions together. Closing a division waits up to a
   * second for its log worker, so this many close in parallel: a stop with a few hundred awake
   * divisions takes seconds, not minutes, and 16 parked threads are cheap.
   */
  public static final int PROXY_THREADS = 16;

  /**
   * How a leader retries a follower it cannot reach, for a group whose members may start apart
   * (the masters' catalog): 10 retries at once, then one about every 50 ms (25-75) for some
   * 30 s, then about one a second (and not before the next heartbeat: Ratis does not wake the
   * appender for a failure).
   * Ratis' default ({@code 1ms,10, 1s,20, 5s,1000}) counts every failed attempt until the
   * follower answers success, and after ten waits 0.5-1.5 s between attempts (2.5-7.5 s after
   * thirty), and once more around the follower's first answer. A master whose Raft server came
   * up a second after the others had elected a leader so got nothing for seconds, and a member
   * whose log is empty cannot help elect (docs/decisions.md): a leader lost meanwhile left the
   * group leaderless (docs/testing.md, "Network partitions").
   */
  public static final String QUICK_APPENDER_RETRY_POLICY = "1ms,10, 50ms,600, 1s,100000";

  /**
   * Makes the leaders of this server's groups retry an unreachable follower as
   * {@link #QUICK_APPENDER_RETRY_POLICY} says. Only for a server with few groups: a tablet
   * server's thousands of leaders would each retry a dead peer 20 times a second.
   */
  public static void retryUnreachableFollowersQuickly(RaftProperties p) {
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, QUICK_APPENDER_RETRY_POLICY);
  }

  /**
   * Turns off Ratis' own snapshot file transfer, so that a follower the leader's log cannot catch
   * up is told to rebuild itself ({@code notifyInstallSnapshotFromLeader}): tablet servers do that
   * by tablet copy (docs/architecture.md, "Tablet copy"). Not for servers whose state machines
   * cannot copy.
   */
  public static void useStateMachineCopy(RaftProperties p) {
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, false);
  }
}
