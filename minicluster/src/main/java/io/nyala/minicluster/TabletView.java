package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.TransferLeadershipResponsePB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.common.rpc.Channels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One look at a minicluster's tablets over RPC only (GetTableLocations on the master, ListTablets
 * and TransferLeadership on the tablet servers), so that it works the same in both process
 * modes. Holds the channels of one question or one wait; close it after.
 */
final class TabletView implements AutoCloseable {
  /** A paused (SIGSTOPped) server never answers: give up on it quickly. */
  private static final long PROBE_DEADLINE_MS = 1_000;
  private static final long LOCATIONS_DEADLINE_MS = 10_000;

  private final MiniCluster cluster;
  private final Channels channels;

  TabletView(MiniCluster cluster) {
    this.cluster = cluster;
    // TransferLeadership is an admin call: under TLS it presents the harness's certificate.
    this.channels = cluster.tls().newHarnessChannels();
  }

  /**
   * A table's tablets as the master serving as leader places them; a master that is not the
   * leader (or not ready) is skipped.
   *
   * @throws NyalaException NOT_FOUND for an unknown table, SERVICE_UNAVAILABLE if no master
   *     answers
   */
  List<TabletLocationsPB> locations(String table) {
    NyalaException last = null;
    for (int i = 0; i < cluster.numMasters(); i++) {
      ServerInfo m = cluster.master(i);
      if (!m.running()) {
        continue;
      }
      try {
        GetTableLocationsResponsePB r = MasterServiceGrpc.newBlockingStub(
                channels.get(m.rpcAddress()))
            .withDeadlineAfter(LOCATIONS_DEADLINE_MS, TimeUnit.MILLISECONDS)
            .getTableLocations(GetTableLocationsRequestPB.newBuilder()
                .setTable(TableIdentifierPB.newBuilder().setTableName(table))
                .setMaxReturnedLocations(100_000).build());
        if (!NyalaException.isError(r.getError())) {
          return r.getTabletLocationsList();
        }
        last = NyalaException.fromPb(r.getError());
        if (last.code() == StatusCode.NOT_FOUND) {
          throw last;
        }
      } catch (io.grpc.StatusRuntimeException e) {
        last = NyalaException.from(e);
      }
    }
    throw NyalaException.unavailable("no master answered the locations of table '%s'%s", table,
        last == null ? "" : " (last error: " + last.getMessage() + ")");
  }

  /** The uuids of a tablet's replicas as the master places them; empty if it has none. */
  List<String> replicaUuids(TabletLocationsPB t) {
    List<String> out = new ArrayList<>();
    t.getReplicasList().forEach(r -> out.add(r.getTsInfo().getUuid()));
    return out;
  }

  /**
   * What tablet server {@code index} says of each replica it hosts, by tablet id; null if it is
   * not running or does not answer within a second (paused, dying or starting).
   */
  Map<String, ListTabletsResponsePB.StatusPB> statuses(int index) {
    ServerInfo ts = cluster.tabletServer(index);
    if (!ts.running()) {
      return null;
    }
    try {
      ListTabletsResponsePB r = TabletServerServiceGrpc.newBlockingStub(
              channels.get(ts.rpcAddress()))
          .withDeadlineAfter(PROBE_DEADLINE_MS, TimeUnit.MILLISECONDS)
          .listTablets(ListTabletsRequestPB.getDefaultInstance());
      if (NyalaException.isError(r.getError())) {
        return null;
      }
      Map<String, ListTabletsResponsePB.StatusPB> out = new HashMap<>();
      r.getTabletsList().forEach(s -> out.put(s.getTabletId(), s));
      return out;
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Every tablet server's {@link #statuses}, in index order (null entries for the silent). */
  List<Map<String, ListTabletsResponsePB.StatusPB>> allStatuses() {
    List<Map<String, ListTabletsResponsePB.StatusPB>> out = new ArrayList<>();
    for (int i = 0; i < cluster.numTabletServers(); i++) {
      out.add(statuses(i));
    }
    return out;
  }

  /**
   * The index of the tablet server whose replica of {@code tabletId} says it leads, in
   * {@code statuses} (from {@link #allStatuses}); -1 if none does. With two claimants (a deposed
   * leader not yet told), the higher term wins.
   */
  static int leaderIndex(List<Map<String, ListTabletsResponsePB.StatusPB>> statuses,
      String tabletId) {
    int best = -1;
    long bestTerm = -1;
    for (int i = 0; i < statuses.size(); i++) {
      ListTabletsResponsePB.StatusPB s = statuses.get(i) == null ? null
          : statuses.get(i).get(tabletId);
      if (s != null && s.getRole() == RaftRolePB.LEADER && s.getTerm() > bestTerm) {
        best = i;
        bestTerm = s.getTerm();
      }
    }
    return best;
  }

  /** A tablet's replicas as the master places them, with its leader as in {@code statuses}. */
  TabletReplicas replicas(TabletLocationsPB t,
      List<Map<String, ListTabletsResponsePB.StatusPB>> statuses) {
    List<ServerInfo> rs = new ArrayList<>();
    for (String uuid : replicaUuids(t)) {
      int i = cluster.tabletServerIndex(uuid);
      if (i >= 0) {
        rs.add(cluster.tabletServer(i));
      }
    }
    return new TabletReplicas(t.getTabletId(), rs, leaderIndex(statuses, t.getTabletId()));
  }

  /**
   * Asks tablet server {@code from} to hand the leadership of {@code tabletId} to {@code toUuid}
   * within {@code timeoutMs}; the response's error is set if it refused or did not finish.
   */
  TransferLeadershipResponsePB transfer(int from, String tabletId, String toUuid,
      long timeoutMs) {
    return TabletServerAdminServiceGrpc.newBlockingStub(
            channels.get(cluster.tabletServer(from).rpcAddress()))
        .withDeadlineAfter(timeoutMs + 5_000, TimeUnit.MILLISECONDS)
        .transferLeadership(TransferLeadershipRequestPB.newBuilder().setTabletId(tabletId)
            .setNewLeaderUuid(toUuid).setTimeoutMs(timeoutMs).build());
  }

  /**
   * Asks tablet server {@code index} to wake its hibernated replica of {@code tabletId}, without
   * waiting for the group; a server that does not answer is left alone (the next poll asks again).
   */
  void wake(int index, String tabletId) {
    ServerInfo ts = cluster.tabletServer(index);
    if (!ts.running()) {
      return;
    }
    try {
      TabletServerAdminServiceGrpc.newBlockingStub(channels.get(ts.rpcAddress()))
          .withDeadlineAfter(PROBE_DEADLINE_MS, TimeUnit.MILLISECONDS)
          .wakeReplica(WakeReplicaRequestPB.newBuilder().setTabletId(tabletId).build());
    } catch (RuntimeException e) {
      // paused, dying or starting: the wait goes on
    }
  }

  @Override
  public void close() {
    channels.close();
  }
}
