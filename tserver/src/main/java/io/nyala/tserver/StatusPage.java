package io.nyala.tserver;

import io.nyala.common.HostPort;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.web.Html;
import io.nyala.tserver.replica.ReplicaState;
import io.nyala.tserver.replica.TabletReplica;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The tablet server's home page: identity, addresses and a table of its tablets. */
final class StatusPage {
  private StatusPage() {}

  static String render(TabletServer ts) {
    HostPort http = ts.httpAddress();
    StringBuilder sb = new StringBuilder();
    sb.append("<h1>").append(Html.escape(ts.name())).append("</h1>")
        .append("<p>role: tablet server<br>uuid: ").append(Html.escape(ts.uuid()))
        .append("<br>RPC: ").append(Html.escape(String.valueOf(ts.rpcAddress())))
        .append("<br>Raft: ").append(Html.escape(String.valueOf(ts.raftAddress())))
        .append("<br>HTTP: ").append(Html.escape(String.valueOf(http)))
        .append("</p><h2>Tablets</h2>");
    Map<ReplicaState, Long> byState = new EnumMap<>(ReplicaState.class);
    for (TabletReplica r : ts.tabletManager().replicas()) {
      byState.merge(r.state(), 1L, Long::sum);
    }
    long cold = byState.getOrDefault(ReplicaState.HIBERNATED, 0L);
    sb.append("<p>").append(ts.tabletManager().count()).append(" replicas: ")
        .append(byState.getOrDefault(ReplicaState.RUNNING, 0L)).append(" awake (hot), ")
        .append(cold).append(" hibernated (cold)");
    byState.forEach((st, n) -> {
      if (st != ReplicaState.RUNNING && st != ReplicaState.HIBERNATED) {
        sb.append(", ").append(n).append(' ').append(st.name().toLowerCase(Locale.ROOT));
      }
    });
    sb.append("</p>");
    List<List<String>> rows = new ArrayList<>();
    for (TabletReplica r : ts.tabletManager().replicas()) {
      ListTabletsResponsePB.StatusPB s = r.status(ts.raftServer());
      rows.add(List.of(s.getTabletId(), s.getTableName(), partition(s.getPartition()),
          s.getState(), s.getRole().name(), s.getLeaderUuid(),
          Long.toString(s.getLastAppliedIndex()), Long.toString(s.getEstimatedRows()),
          s.getError()));
    }
    sb.append(Html.table(List.of("tablet", "table", "partition", "state", "role", "leader",
        "last applied", "rows", "error"), rows));
    return sb.toString();
  }

  private static String partition(PartitionPB p) {
    HexFormat hex = HexFormat.of();
    return "buckets " + p.getHashBucketsList() + ", ["
        + hex.formatHex(p.getPartitionKeyStart().toByteArray()) + ", "
        + hex.formatHex(p.getPartitionKeyEnd().toByteArray()) + ")";
  }
}
