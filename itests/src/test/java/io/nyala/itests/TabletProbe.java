package io.nyala.itests;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.TransferLeadershipResponsePB;
import io.nyala.common.row.RowBlock;
import io.nyala.common.schema.Schema;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Raw gRPC access to a minicluster's servers, bypassing the client and its caches: tablet ids
 * from the master, each tablet server's own view of who leads, stubs for direct calls, and
 * leadership transfer. Calls to a frozen server time out after a second instead of hanging.
 */
final class TabletProbe implements AutoCloseable {
  /** The certificate the minicluster makes for its own admin calls, next to its CA. */
  private static final String HARNESS = "minicluster-harness";
  private final MiniCluster cluster;
  private final Map<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();

  TabletProbe(MiniCluster cluster) {
    this.cluster = cluster;
  }

  /**
   * Plaintext, or TLS trusting the cluster's CA when it runs TLS. Then it presents the
   * minicluster harness's certificate, since leadership transfer is an admin call the servers
   * serve to holders of a certificate of the CA only (docs/architecture.md, "Who may call
   * what").
   */
  private ManagedChannel channel(HostPort hp) {
    return channels.computeIfAbsent(hp, a -> {
      NettyChannelBuilder b = NettyChannelBuilder.forAddress(a.host(), a.port());
      Path ca = cluster.trustedCaFile();
      if (ca == null) {
        return b.usePlaintext().build();
      }
      try {
        Path dir = ca.getParent();
        return b.sslContext(GrpcSslContexts.forClient().trustManager(ca.toFile())
            .keyManager(dir.resolve(HARNESS + ".crt").toFile(),
                dir.resolve(HARNESS + ".key").toFile()).build()).build();
      } catch (SSLException e) {
        throw new IllegalStateException("cannot trust CA " + ca, e);
      }
    });
  }

  /** A data-service stub to tablet server {@code index} with a deadline of {@code ms}. */
  TabletServerServiceGrpc.TabletServerServiceBlockingStub tserver(int index, long ms) {
    return TabletServerServiceGrpc.newBlockingStub(
        channel(cluster.tabletServer(index).rpcAddress())).withDeadlineAfter(ms,
        TimeUnit.MILLISECONDS);
  }

  /** The ids of a table's tablets, from the master. */
  List<String> tabletIds(String table) {
    List<String> ids = new ArrayList<>();
    for (TabletLocationsPB t : locations(table)) {
      ids.add(t.getTabletId());
    }
    return ids;
  }

  /** Each tablet's replicas (tserver uuids) as the leader master places them. */
  Map<String, Set<String>> replicaSets(String table) {
    Map<String, Set<String>> out = new TreeMap<>();
    for (TabletLocationsPB t : locations(table)) {
      Set<String> uuids = new TreeSet<>();
      t.getReplicasList().forEach(r -> uuids.add(r.getTsInfo().getUuid()));
      out.put(t.getTabletId(), uuids);
    }
    return out;
  }

  /** A table's tablet locations from the master serving as leader (the first, if only one). */
  private List<TabletLocationsPB> locations(String table) {
    int leader = Math.max(0, cluster.numMasters() == 1 ? 0 : cluster.leaderMasterIndex());
    GetTableLocationsResponsePB resp = MasterServiceGrpc.newBlockingStub(
            channel(cluster.master(leader).rpcAddress()))
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .getTableLocations(GetTableLocationsRequestPB.newBuilder()
            .setTable(TableIdentifierPB.newBuilder().setTableName(table))
            .setMaxReturnedLocations(1000).build());
    if (NyalaException.isError(resp.getError())) {
      throw NyalaException.fromPb(resp.getError());
    }
    return resp.getTabletLocationsList();
  }

  /**
   * The index of the tablet server whose replica of {@code tabletId} says it leads, asking each
   * running server itself (the master's view lags by a heartbeat); -1 if none does. With two
   * claimants (a deposed leader not yet told), the higher term wins.
   */
  int leaderIndex(String tabletId) {
    int best = -1;
    long bestTerm = -1;
    for (int i = 0; i < cluster.numTabletServers(); i++) {
      ListTabletsResponsePB.StatusPB s = status(i, tabletId);
      if (s != null && s.getRole() == RaftRolePB.LEADER && s.getTerm() > bestTerm) {
        best = i;
        bestTerm = s.getTerm();
      }
    }
    return best;
  }

  /** The tablets server {@code index} hosts, or null if it does not answer. */
  Set<String> hosted(int index) {
    try {
      Set<String> out = new HashSet<>();
      tserver(index, 2000).listTablets(ListTabletsRequestPB.getDefaultInstance())
          .getTabletsList().forEach(s -> out.add(s.getTabletId()));
      return out;
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Server {@code index}'s status of its replica of {@code tabletId}; null if unreachable. */
  ListTabletsResponsePB.StatusPB status(int index, String tabletId) {
    if (!cluster.tabletServer(index).running()) {
      return null;
    }
    try {
      ListTabletsResponsePB resp = tserver(index, 1000)
          .listTablets(ListTabletsRequestPB.getDefaultInstance());
      for (ListTabletsResponsePB.StatusPB s : resp.getTabletsList()) {
        if (s.getTabletId().equals(tabletId)) {
          return s;
        }
      }
      return null;
    } catch (RuntimeException e) {
      return null; // frozen, dead or restarting
    }
  }

  /**
   * Asks tablet server {@code from} (the current leader) to hand the leadership of
   * {@code tabletId} to server {@code to}.
   *
   * @return the response (its error is set if the transfer was refused or did not finish)
   */
  TransferLeadershipResponsePB transferLeadership(int from, String tabletId, int to) {
    return TabletServerAdminServiceGrpc.newBlockingStub(
            channel(cluster.tabletServer(from).rpcAddress()))
        .withDeadlineAfter(15, TimeUnit.SECONDS)
        .transferLeadership(TransferLeadershipRequestPB.newBuilder().setTabletId(tabletId)
            .setNewLeaderUuid(cluster.tabletServer(to).uuid()).setTimeoutMs(10_000).build());
  }

  /**
   * Every key of {@code tabletId} as tablet server {@code index} serves them, read straight from
   * it with READ_LATEST, page after page of one scanner.
   *
   * @throws NyalaException the server's error (e.g. NOT_LEADER)
   */
  Set<Long> scanKeys(int index, String tabletId) {
    Set<Long> keys = new HashSet<>();
    ScanResponsePB resp = tserver(index, 30_000).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tabletId)
            .addProjectedColumns("key").setReadMode(ReadModePB.READ_LATEST))
        .setBatchSizeRows(5000).build());
    int seq = 0;
    while (true) {
      if (NyalaException.isError(resp.getError())) {
        throw NyalaException.fromPb(resp.getError());
      }
      Schema projection = Schema.fromPb(resp.getProjection());
      for (Object[] row : RowBlock.decode(projection, resp.getData())) {
        keys.add((Long) row[0]);
      }
      if (!resp.getHasMoreResults()) {
        return keys;
      }
      resp = tserver(index, 30_000).scan(ScanRequestPB.newBuilder()
          .setScannerId(resp.getScannerId()).setCallSeqId(++seq).setBatchSizeRows(5000).build());
    }
  }

  /** The tablet server's info, for messages. */
  ServerInfo info(int index) {
    return cluster.tabletServer(index);
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
