package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Waits until every tablet of a table has enough live voters and a leader. A live voter is a
 * running tablet server that answers ListTablets with its replica RUNNING as LEADER or FOLLOWER
 * (a hibernated replica, a learner, a replica still opening or a paused server does not count).
 * A tablet that went cold while waited for (idle for the hibernation period, as after a long
 * fault) is woken: its hibernated replicas are asked to wake, so that the wait ends once it
 * serves again instead of running out (docs/dense-nodes.md).
 */
final class QuorumWait {
  private QuorumWait() {}

  /**
   * Waits up to {@code timeout}; returns each tablet's replicas and leader.
   *
   * @throws NyalaException TIMED_OUT naming each tablet not there yet and what it lacks;
   *     NOT_FOUND for an unknown table
   */
  static List<TabletReplicas> await(MiniCluster cluster, String table, int voters,
      Duration timeout) {
    AtomicReference<String> lacking = new AtomicReference<>("no answer yet");
    return RemoteWait.until(cluster, String.format("table '%s': every tablet with %d live "
        + "voters and a leader", table, voters), timeout,
        view -> check(cluster, view, table, voters, lacking), lacking::get);
  }

  private static List<TabletReplicas> check(MiniCluster cluster, TabletView view, String table,
      int voters, AtomicReference<String> lacking) {
    List<TabletLocationsPB> locations;
    try {
      locations = view.locations(table);
    } catch (NyalaException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        throw e;
      }
      lacking.set(e.getMessage());
      return null;
    }
    if (locations.isEmpty()) {
      lacking.set("the master lists no tablets yet");
      return null;
    }
    List<Map<String, ListTabletsResponsePB.StatusPB>> statuses = view.allStatuses();
    List<String> shortOnes = new ArrayList<>();
    List<TabletReplicas> out = new ArrayList<>();
    for (TabletLocationsPB t : locations) {
      String id = t.getTabletId();
      List<String> live = liveVoters(cluster, statuses, id);
      boolean led = TabletView.leaderIndex(statuses, id) >= 0;
      if (live.size() < voters || !led) {
        wakeCold(view, statuses, id);
        shortOnes.add(String.format("tablet %s has %d of %d live voters %s%s", id, live.size(),
            voters, live, led ? "" : " and no leader"));
      }
      out.add(view.replicas(t, statuses));
    }
    if (!shortOnes.isEmpty()) {
      lacking.set(shortOnes.size() + " of " + locations.size() + " tablets are short: "
          + String.join("; ", shortOnes));
      return null;
    }
    return out;
  }

  /** Asks each server whose replica of {@code tabletId} is hibernated to wake it. */
  static void wakeCold(TabletView view,
      List<Map<String, ListTabletsResponsePB.StatusPB>> statuses, String tabletId) {
    for (int i = 0; i < statuses.size(); i++) {
      ListTabletsResponsePB.StatusPB s = statuses.get(i) == null ? null
          : statuses.get(i).get(tabletId);
      if (s != null && "HIBERNATED".equals(s.getState())) {
        view.wake(i, tabletId);
      }
    }
  }

  /** The names of the servers whose replica of {@code tabletId} is a running voter. */
  private static List<String> liveVoters(MiniCluster cluster,
      List<Map<String, ListTabletsResponsePB.StatusPB>> statuses, String tabletId) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < statuses.size(); i++) {
      ListTabletsResponsePB.StatusPB s = statuses.get(i) == null ? null
          : statuses.get(i).get(tabletId);
      if (s != null && "RUNNING".equals(s.getState())
          && (s.getRole() == RaftRolePB.LEADER || s.getRole() == RaftRolePB.FOLLOWER)) {
        out.add(cluster.tabletServer(i).name());
      }
    }
    return out;
  }
}
