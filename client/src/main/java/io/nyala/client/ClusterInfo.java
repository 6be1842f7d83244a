package io.nyala.client;

import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB.StatusPB;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Cluster introspection behind the client (docs/architecture.md, "Client statistics"): the
 * tablet servers as the leader master lists them (ListTabletServers, as the CLI asks), and a
 * table's size summed from what its tablets' replicas report in ListTablets. Stateless apart
 * from its collaborators.
 */
final class ClusterInfo {
  private static final ListTabletsRequestPB LIST_TABLETS =
      ListTabletsRequestPB.getDefaultInstance();

  private final MasterProxy master;
  private final Transport transport;
  private final TableDdl ddl;
  private final long adminTimeoutMs;
  private final long attemptTimeoutMs;

  ClusterInfo(MasterProxy master, Transport transport, TableDdl ddl, long adminTimeoutMs,
      long attemptTimeoutMs) {
    this.master = master;
    this.transport = transport;
    this.ddl = ddl;
    this.adminTimeoutMs = adminTimeoutMs;
    this.attemptTimeoutMs = attemptTimeoutMs;
  }

  CompletableFuture<List<TabletServerInfo>> listTabletServers() {
    return master.call("ListTabletServers", ListTabletServersRequestPB.getDefaultInstance(),
        MasterServiceStub::listTabletServers, ListTabletServersResponsePB::getError,
        Deadline.after(adminTimeoutMs)).thenApply(r -> {
          List<TabletServerInfo> out = new ArrayList<>(r.getServersCount());
          for (ListTabletServersResponsePB.Entry e : r.getServersList()) {
            out.add(new TabletServerInfo(e.getTsInfo().getUuid(),
                HostPort.fromPb(e.getTsInfo().getRpcAddress()), e.getLive(),
                e.getMillisSinceHeartbeat(), e.getNumReplicas(), e.getNumAwakeReplicas(),
                e.getNumHibernatedReplicas()));
          }
          return out;
        });
  }

  /**
   * Asks every live tablet server for its tablets and sums the table's: each tablet counts once,
   * with its leader's estimate, or its largest replica's when no leader answered. A server that
   * does not answer in time is left out, which {@link TableStatistics#tabletsCounted} shows.
   */
  CompletableFuture<TableStatistics> tableStatistics(String tableName) {
    return ddl.listTableInfos(tableName).thenCompose(infos -> {
      TableInfo table = infos.stream().filter(t -> t.name().equals(tableName)).findFirst()
          .orElseThrow(() -> NyalaException.notFound("table '%s' not found", tableName));
      return listTabletServers().thenCompose(servers -> {
        List<CompletableFuture<List<StatusPB>>> calls = new ArrayList<>();
        for (TabletServerInfo s : servers) {
          if (s.live()) {
            calls.add(listTablets(s.rpcAddress()));
          }
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
            .thenApply(v -> sum(table, calls));
      });
    });
  }

  private CompletableFuture<List<StatusPB>> listTablets(HostPort server) {
    Deadline d = Deadline.after(Math.min(adminTimeoutMs, attemptTimeoutMs));
    return transport.<ListTabletsResponsePB>call(server,
            obs -> transport.tserver(server, d).listTablets(LIST_TABLETS, obs))
        .handle((r, err) -> err != null || NyalaException.isError(r.getError())
            ? List.<StatusPB>of() : r.getTabletsList());
  }

  /** One replica's figures. */
  private record Figures(long rows, long bytes) {
    static Figures of(StatusPB s) {
      return new Figures(s.getEstimatedRows(), s.getOnDiskBytes());
    }

    Figures larger(Figures o) {
      return o.rows > rows || (o.rows == rows && o.bytes > bytes) ? o : this;
    }
  }

  private static TableStatistics sum(TableInfo table,
      List<CompletableFuture<List<StatusPB>>> calls) {
    Map<String, Figures> leaders = new HashMap<>();
    Map<String, Figures> largest = new HashMap<>();
    for (CompletableFuture<List<StatusPB>> c : calls) {
      for (StatusPB s : c.join()) {
        if (!s.getTableId().equals(table.id())) {
          continue;
        }
        largest.merge(s.getTabletId(), Figures.of(s), Figures::larger);
        if (s.getRole() == RaftRolePB.LEADER) {
          leaders.put(s.getTabletId(), Figures.of(s));
        }
      }
    }
    long rows = 0;
    long bytes = 0;
    for (Map.Entry<String, Figures> e : largest.entrySet()) {
      Figures f = leaders.getOrDefault(e.getKey(), e.getValue());
      rows += f.rows();
      bytes += f.bytes();
    }
    return new TableStatistics(table.name(), rows, bytes, table.numTablets(), largest.size());
  }
}
