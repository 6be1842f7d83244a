package io.nyala.minicluster.cli;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.partition.RangeBounds;
import io.nyala.common.partition.RangeSchema;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.schema.ColumnSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nyala table describe NAME}: the schema, the hash and range partitioning (with each
 * range partition) and every tablet with its hash buckets, its range and its replicas as the
 * master places them, the leader being the one the master last heard of (the same view
 * {@code cluster ksck} starts from).
 */
@Command(name = "describe", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {
        "Shows a table's columns (type, key, nullable, default), its hash and range "
            + "partitioning, its range partitions, and each tablet's partition (hash buckets and "
            + "range) and replicas: role (LEADER or FOLLOWER, "
            + "as the master last heard), tablet server name, RPC address and uuid."})
final class TableDescribeCommand implements Callable<Integer> {
  @Mixin MastersOption masters;

  @Parameters(index = "0", description = "Table name.")
  String table;

  @Option(names = "--timeout-ms", defaultValue = "10000",
      description = "How long to wait for the master's answers.")
  long timeoutMs;

  @Override
  public Integer call() {
    NyalaTable t;
    try (NyalaClient client = masters.clientBuilder().build()) {
      t = client.openTable(table);
    }
    GetTableLocationsResponsePB locs;
    try (Transport transport = masters.newTransport()) {
      MasterProxy master = masters.masterProxy(transport, Math.min(timeoutMs, 3000));
      locs = master.call("GetTableLocations", GetTableLocationsRequestPB.newBuilder()
              .setTable(TableIdentifierPB.newBuilder().setTableId(t.getTableId()))
              .setMaxReturnedLocations(Integer.MAX_VALUE).build(),
          MasterServiceStub::getTableLocations, GetTableLocationsResponsePB::getError,
          Deadline.after(timeoutMs)).join();
    } catch (RuntimeException e) {
      throw NyalaException.from(e);
    }
    System.out.print(describe(t, locs.getTabletLocationsList()));
    return 0;
  }

  /** The whole description, as printed. */
  static String describe(NyalaTable t, List<TabletLocationsPB> tablets) {
    StringBuilder out = new StringBuilder();
    out.append(String.format("table '%s' (id %s): %s, %s, %s each%n", t.getName(),
        t.getTableId(), TableCreateCommand.count(t.getSchema().columnCount(), "column"),
        TableCreateCommand.count(tablets.size(), "tablet"),
        TableCreateCommand.count(t.getNumReplicas(), "replica")));
    out.append(String.format("%ncolumns:%n"));
    List<String[]> cols = new ArrayList<>();
    cols.add(new String[] {"NAME", "TYPE", "KEY", "NULLABLE", "DEFAULT"});
    for (ColumnSchema c : t.getSchema().columns()) {
      Object d = c.defaultValue();
      cols.add(new String[] {c.name(), c.typeName(),
          c.key() ? "key" : "-", c.nullable() ? "null" : "not null",
          d == null ? "-" : d instanceof byte[] bs ? Arrays.toString(bs) : String.valueOf(d)});
    }
    out.append(align(cols));
    PartitionSchema ps = t.getPartitionSchema();
    RangeSchema rs = ps.rangeSchema();
    out.append(String.format("%npartitioning: %s%n", partitioning(ps)));
    if (!rs.isEmpty()) {
      out.append(String.format("%nrange partitions:%n"));
      ps.ranges().forEach(r -> out.append("  ").append(rs.format(r))
          .append(System.lineSeparator()));
    }
    out.append(String.format("%ntablets:%n"));
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"TABLET", "PARTITION", "ROLE", "TSERVER", "RPC", "UUID"});
    int leaderless = 0;
    for (TabletLocationsPB tl : tablets) {
      String partition = partition(tl.getPartition(), rs);
      boolean leader = false;
      for (TabletLocationsPB.ReplicaPB r : tl.getReplicasList()) {
        TSInfoPB ts = r.getTsInfo();
        leader |= r.getRole() == RaftRolePB.LEADER;
        rows.add(new String[] {tl.getTabletId(), partition, r.getRole().name(),
            ts.getName().isEmpty() ? "-" : ts.getName(),
            ts.hasRpcAddress() ? HostPort.fromPb(ts.getRpcAddress()).toString() : "-",
            ts.getUuid()});
      }
      if (tl.getReplicasCount() == 0) {
        rows.add(new String[] {tl.getTabletId(), partition, "-", "-", "-", "(no replicas)"});
      }
      if (!leader) {
        leaderless++;
      }
    }
    out.append(align(rows));
    if (leaderless > 0) {
      out.append(String.format("%d of %d tablets have no leader the master knows of yet%n",
          leaderless, tablets.size()));
    }
    return out.toString();
  }

  /**
   * E.g. {@code hash(id) into 2 buckets x range(day)}; {@code none (a single tablet)} without
   * any.
   */
  static String partitioning(PartitionSchema ps) {
    List<String> parts = new ArrayList<>(ps.dimensions().stream()
        .map(d -> String.format("hash(%s) into %d buckets%s", String.join(", ", d.columns()),
            d.numBuckets(), d.seed() == 0 ? "" : " (seed " + d.seed() + ")"))
        .toList());
    if (!ps.rangeSchema().isEmpty()) {
      parts.add(String.format("range(%s) in %d ranges",
          String.join(", ", ps.rangeSchema().columns()), ps.ranges().size()));
    }
    return parts.isEmpty() ? "none (a single tablet)" : String.join(" x ", parts);
  }

  /**
   * A tablet's hash bucket in each dimension and its range: {@code bucket 1},
   * {@code buckets 1,0}, {@code bucket 0 range [(day=1), (day=2))}.
   */
  private static String partition(PartitionPB p, RangeSchema rs) {
    List<Integer> b = p.getHashBucketsList();
    String range = p.hasRange() ? "range " + rs.format(RangeBounds.fromPb(p.getRange())) : "";
    if (b.isEmpty()) {
      return range.isEmpty() ? "all" : range;
    }
    return (b.size() == 1 ? "bucket " : "buckets ")
        + b.stream().map(String::valueOf).collect(Collectors.joining(","))
        + (range.isEmpty() ? "" : " " + range);
  }

  /** Rows as left-aligned columns two spaces apart, indented by two; the last unpadded. */
  static String align(List<String[]> rows) {
    int n = rows.stream().mapToInt(r -> r.length).max().orElse(0);
    int[] width = new int[n];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < r.length; i++) {
        line.append(r[i]);
        if (i < r.length - 1) {
          line.append(" ".repeat(width[i] - r[i].length() + 2));
        }
      }
      sb.append(line.toString().stripTrailing()).append(System.lineSeparator());
    }
    return sb.toString();
  }
}
