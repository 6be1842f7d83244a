package io.nyala.minicluster;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.Channels;
import java.util.concurrent.TimeUnit;

/**
 * Asks a master a question only the ready leader answers (ListTabletServers), so that "it
 * answered" means "it serves": Raft leadership alone is not enough, the catalog must be caught
 * up too. On that probe: which master leads, and waiting until the leader sees the tablet
 * servers.
 */
final class LeaderProbe {
  private static final long DEADLINE_MS = 2_000;

  private LeaderProbe() {}

  /**
   * The tablet servers as the master at {@code master} sees them if it serves as leader; null if
   * it answered with an error (not the leader, or not ready yet); throws if it is unreachable.
   */
  static ListTabletServersResponsePB tabletServers(Channels channels, HostPort master) {
    ListTabletServersResponsePB r = MasterServiceGrpc.newBlockingStub(channels.get(master))
        .withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
        .listTabletServers(ListTabletServersRequestPB.getDefaultInstance());
    return NyalaException.isError(r.getError()) ? null : r;
  }

  /**
   * The index of the running master that serves as leader right now, or -1 if none does.
   * Asks every running master; works in both process modes.
   */
  static int leaderIndex(ServerGroup masters, ClusterTls tls) {
    try (Channels channels = tls.newChannels()) {
      for (int i = 0; i < masters.size(); i++) {
        if (!masters.get(i).isRunning()) {
          continue;
        }
        try {
          if (tabletServers(channels, masters.get(i).rpcAddress()) != null) {
            return i;
          }
        } catch (RuntimeException e) {
          // unreachable (starting, or just killed): not the leader
        }
      }
    }
    return -1;
  }

  /**
   * Waits until a running master serves as leader and sees at least {@code liveWanted} live
   * tablet servers; TIMED_OUT after {@code timeoutMs}, naming the last probe error.
   */
  static void awaitLiveTabletServers(ServerGroup masters, ClusterTls tls, long liveWanted,
      long timeoutMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    try (Channels channels = tls.newChannels()) {
      NyalaException last = null;
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < masters.size(); i++) {
          ServerNode m = masters.get(i);
          if (!m.isRunning()) {
            continue;
          }
          try {
            ListTabletServersResponsePB r = tabletServers(channels, m.rpcAddress());
            if (r != null) {
              long live = r.getServersList().stream().filter(e -> e.getLive()).count();
              if (live >= liveWanted) {
                return;
              }
            }
          } catch (RuntimeException e) {
            last = NyalaException.from(e);
          }
        }
        try {
          Thread.sleep(20); // polling a remote condition; no event to wait on
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw NyalaException.illegalState("interrupted waiting for tablet servers");
        }
      }
      throw NyalaException.timedOut("tablet servers did not register with the master within "
          + "%d ms%s", timeoutMs, last == null ? "" : " (last error: " + last.getMessage() + ")");
    }
  }
}
