package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.TransferLeadershipResponsePB;
import io.nyala.master.MasterServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A minicluster's tablets for test authors: who leads a tablet and where its replicas are,
 * faults aimed at a tablet's leader or a follower, waiting for every tablet of a table to have
 * its voters and a leader, and leadership transfer. Reached as {@code cluster.tablets()}.
 *
 * <pre>{@code
 * List<TabletReplicas> ts = cluster.tablets().awaitVoters("metrics", 3, Duration.ofSeconds(30));
 * ServerInfo killed = cluster.tablets().killLeader(ts.get(0).tabletId());
 * cluster.tablets().awaitVoters("metrics", 2, Duration.ofSeconds(30));
 * cluster.startTabletServer(killed.index());
 * }</pre>
 *
 * <p>Every answer comes over RPC (the master's GetTableLocations, the tablet servers'
 * ListTablets and TransferLeadership), never from server objects in this JVM, so each method
 * works in both {@link ProcessMode}s, except where the fault itself needs a process (kill and
 * pause, as on {@link MiniCluster}). Who leads is what the tablet servers say, not the master,
 * whose view lags by a heartbeat. A paused server does not answer and so holds no replica in
 * these answers. Holds no resources: each call opens and closes its own channels.
 */
public final class ClusterTablets {
  /** How long the fault methods wait for a tablet to have a leader before they act. */
  public static final Duration LEADER_WAIT = Duration.ofSeconds(30);

  private final MiniCluster cluster;

  ClusterTablets(MiniCluster cluster) {
    this.cluster = cluster;
  }

  /**
   * The ids of a table's tablets, in partition order, from the master serving as leader.
   *
   * @throws NyalaException NOT_FOUND for an unknown table
   */
  public List<String> tabletIds(String table) {
    try (TabletView view = new TabletView(cluster)) {
      return view.locations(table).stream().map(TabletLocationsPB::getTabletId).toList();
    }
  }

  /**
   * Every tablet of a table: its replicas as the master places them and its leader now, as the
   * tablet servers report it.
   *
   * @throws NyalaException NOT_FOUND for an unknown table
   */
  public List<TabletReplicas> ofTable(String table) {
    try (TabletView view = new TabletView(cluster)) {
      List<TabletLocationsPB> locations = view.locations(table);
      List<Map<String, ListTabletsResponsePB.StatusPB>> statuses = view.allStatuses();
      return locations.stream().map(t -> view.replicas(t, statuses)).toList();
    }
  }

  /**
   * One tablet's replicas and leader. The master is asked for the table of the tablet that a
   * running tablet server hosts.
   *
   * @throws NyalaException NOT_FOUND if no running tablet server hosts the tablet
   */
  public TabletReplicas tablet(String tabletId) {
    try (TabletView view = new TabletView(cluster)) {
      List<Map<String, ListTabletsResponsePB.StatusPB>> statuses = view.allStatuses();
      String table = statuses.stream().filter(m -> m != null && m.containsKey(tabletId))
          .map(m -> m.get(tabletId).getTableName()).findFirst()
          .orElseThrow(() -> NyalaException.notFound("tablet %s: no running tablet server "
              + "hosts it", tabletId));
      return view.locations(table).stream().filter(t -> t.getTabletId().equals(tabletId))
          .findFirst().map(t -> view.replicas(t, statuses))
          .orElseThrow(() -> NyalaException.notFound("tablet %s: not in the master's locations "
              + "of table '%s'", tabletId, table));
    }
  }

  /**
   * The index of the tablet server whose replica of {@code tabletId} leads now, or -1 if none
   * does (electing, hibernated, or its leader is paused or dead).
   */
  public int leaderIndex(String tabletId) {
    try (TabletView view = new TabletView(cluster)) {
      return TabletView.leaderIndex(view.allStatuses(), tabletId);
    }
  }

  /**
   * Waits until a replica of {@code tabletId} leads and returns its server; a cold tablet (its
   * replicas hibernated) is asked to wake.
   *
   * @throws NyalaException TIMED_OUT after {@code timeout}
   */
  public ServerInfo awaitLeader(String tabletId, Duration timeout) {
    return RemoteWait.until(cluster, "tablet " + tabletId + ": a leader", timeout, view -> {
      List<Map<String, ListTabletsResponsePB.StatusPB>> statuses = view.allStatuses();
      int i = TabletView.leaderIndex(statuses, tabletId);
      if (i < 0) {
        QuorumWait.wakeCold(view, statuses, tabletId);
        return null;
      }
      return cluster.tabletServer(i);
    }, () -> "no replica says it leads");
  }

  /**
   * Waits until every tablet of {@code table} has at least {@code voters} live voters (running
   * replicas that answer as LEADER or FOLLOWER; hibernated ones do not count) and a leader. A
   * tablet found cold (hibernated replicas, as after the idle period) is asked to wake.
   *
   * @return each tablet's replicas and leader once they do
   * @throws NyalaException TIMED_OUT naming each tablet not there yet, its live voters and
   *     whether it lacks a leader; NOT_FOUND for an unknown table
   */
  public List<TabletReplicas> awaitVoters(String table, int voters, Duration timeout) {
    return QuorumWait.await(cluster, table, voters, timeout);
  }

  /**
   * SIGKILLs the tablet server leading {@code tabletId}, waiting up to {@link #LEADER_WAIT} for
   * a leader first. EXTERNAL mode only (NOT_SUPPORTED in-process).
   *
   * @return the server killed (its index restarts it: {@link MiniCluster#startTabletServer})
   */
  public ServerInfo killLeader(String tabletId) {
    return apply(Fault.KILL, awaitLeader(tabletId, LEADER_WAIT));
  }

  /**
   * SIGSTOPs the tablet server leading {@code tabletId}; {@link #resume} wakes it. EXTERNAL mode
   * only (NOT_SUPPORTED in-process).
   *
   * @return the server paused
   */
  public ServerInfo pauseLeader(String tabletId) {
    return apply(Fault.PAUSE, awaitLeader(tabletId, LEADER_WAIT));
  }

  /**
   * Stops and starts the tablet server leading {@code tabletId}, on the same directories and
   * addresses. Both modes.
   *
   * @return the server restarted
   */
  public ServerInfo restartLeader(String tabletId) {
    return apply(Fault.RESTART, awaitLeader(tabletId, LEADER_WAIT));
  }

  /**
   * SIGKILLs a running follower of {@code tabletId} (the first in the master's order), once the
   * tablet has a leader. EXTERNAL mode only (NOT_SUPPORTED in-process).
   *
   * @return the server killed
   * @throws NyalaException NOT_FOUND if no follower runs
   */
  public ServerInfo killFollower(String tabletId) {
    return apply(Fault.KILL, follower(tabletId));
  }

  /**
   * SIGSTOPs a running follower of {@code tabletId}; {@link #resume} wakes it. EXTERNAL mode
   * only (NOT_SUPPORTED in-process).
   *
   * @return the server paused
   */
  public ServerInfo pauseFollower(String tabletId) {
    return apply(Fault.PAUSE, follower(tabletId));
  }

  /**
   * Stops and starts a running follower of {@code tabletId}. Both modes.
   *
   * @return the server restarted
   */
  public ServerInfo restartFollower(String tabletId) {
    return apply(Fault.RESTART, follower(tabletId));
  }

  /** SIGCONTs a server paused by {@link #pauseLeader} or {@link #pauseFollower}. */
  public void resume(ServerInfo paused) {
    cluster.resumeTabletServer(paused.index());
  }

  private enum Fault { KILL, PAUSE, RESTART }

  private ServerInfo apply(Fault fault, ServerInfo target) {
    switch (fault) {
      case KILL -> cluster.killTabletServer(target.index());
      case PAUSE -> cluster.pauseTabletServer(target.index());
      case RESTART -> cluster.restartTabletServer(target.index());
      default -> throw new IllegalArgumentException(fault.name());
    }
    return target;
  }

  private ServerInfo follower(String tabletId) {
    ServerInfo leader = awaitLeader(tabletId, LEADER_WAIT);
    return tablet(tabletId).replicas().stream()
        .filter(r -> r.index() != leader.index() && cluster.tabletServer(r.index()).running())
        .findFirst().map(r -> cluster.tabletServer(r.index()))
        .orElseThrow(() -> NyalaException.notFound("tablet %s: no running follower (leader %s)",
            tabletId, leader.name()));
  }

  /**
   * Makes tablet server {@code toIndex}'s replica of {@code tabletId} the leader: asks the
   * current leader to transfer (Raft leadership transfer: the target catches up, then starts an
   * election at once), again if the leader changed meanwhile, and waits until the target says it
   * leads. Both modes.
   *
   * @return the new leader
   * @throws NyalaException TIMED_OUT after {@code timeout}, with the last refusal
   */
  public ServerInfo transferLeadership(String tabletId, int toIndex, Duration timeout) {
    String toUuid = cluster.tabletServer(toIndex).uuid();
    long perTryMs = Math.min(timeout.toMillis(), 10_000);
    AtomicReference<String> last = new AtomicReference<>("no replica says it leads");
    return RemoteWait.until(cluster, "tablet " + tabletId + ": leadership to "
        + cluster.tabletServer(toIndex).name(), timeout, view -> {
          int leader = TabletView.leaderIndex(view.allStatuses(), tabletId);
          if (leader == toIndex) {
            return cluster.tabletServer(toIndex);
          }
          if (leader < 0) {
            return null;
          }
          TransferLeadershipResponsePB r = view.transfer(leader, tabletId, toUuid, perTryMs);
          if (NyalaException.isError(r.getError())) {
            last.set(cluster.tabletServer(leader).name() + " refused: "
                + NyalaException.fromPb(r.getError()).getMessage());
          }
          return null; // the next poll sees whether the target leads now
        }, last::get);
  }

  /**
   * Gives tablet server {@code index} these flags (on top of the builder's; none clears them)
   * and restarts it so that they apply. No tablet server flag may change at run time (each is
   * read once at start, see {@code TserverOptions}) and no RPC sets flags, so a restart is the
   * only way; both modes.
   */
  public void restartWithFlags(int index, String... flags) {
    cluster.setTabletServerFlags(index, flags);
    cluster.restartTabletServer(index);
  }

  /**
   * Resizes master {@code index}'s GetTableLocations cache at run time: the only flag
   * ({@code --table_locations_cache_capacity_mb}) any server lets change while it runs.
   * In-process mode only: there is no RPC for it, so NOT_SUPPORTED in EXTERNAL mode (restart
   * the master with the flag instead).
   */
  public void setMasterLocationsCacheCapacityMb(int index, long mb) {
    MasterServer m = cluster.inProcessMaster(index);
    if (m == null) {
      throw new NyalaException(StatusCode.NOT_SUPPORTED, cluster.master(index).name()
          + " does not run in this JVM (stopped, or EXTERNAL mode): its locations cache can be "
          + "resized only by a restart with --table_locations_cache_capacity_mb");
    }
    m.locationsCache().setCapacityMb(mb);
  }
}
