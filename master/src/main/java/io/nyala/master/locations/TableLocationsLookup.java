package io.nyala.master.locations;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.ReplicaTypeFilterPB;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.CatalogState;
import io.nyala.master.catalog.ReplicaReports;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.BooleanSupplier;

/**
 * Answers GetTableLocations from the catalog, the reported leaders and the registry: the tablets
 * whose partition-key range intersects [start, end), in partition-key order, beginning with the
 * tablet that contains {@code start}. Stateless apart from its collaborators, so a cache can wrap
 * {@link #lookup} without touching it. The caller checks leadership.
 */
public final class TableLocationsLookup {
  /** How long clients may cache a response. */
  public static final int TTL_MILLIS = 300_000;

  private final SysCatalog catalog;
  private final ReplicaReports reports;
  private final TSManager tsManager;
  private final int defaultMaxLocations;

  public TableLocationsLookup(SysCatalog catalog, ReplicaReports reports, TSManager tsManager,
      int defaultMaxLocations) {
    this.catalog = catalog;
    this.reports = reports;
    this.tsManager = tsManager;
    this.defaultMaxLocations = defaultMaxLocations;
  }

  /**
   * Rejects a malformed request with INVALID_ARGUMENT naming the field and its value, and
   * returns the number of locations to return at most.
   */
  public int validate(GetTableLocationsRequestPB req) {
    ByteString start = req.getPartitionKeyStart();
    ByteString end = req.getPartitionKeyEnd();
    if (!start.isEmpty() && !end.isEmpty() && compare(end, start) <= 0) {
      throw NyalaException.invalidArgument(
          "partition_key_end (%s) must be greater than partition_key_start (%s)",
          hex(end), hex(start));
    }
    if (req.getReplicaTypeFilter() == ReplicaTypeFilterPB.UNRECOGNIZED) {
      throw NyalaException.invalidArgument("replica_type_filter %d is not a known filter",
          req.getReplicaTypeFilterValue());
    }
    if (!req.hasMaxReturnedLocations()) {
      return defaultMaxLocations;
    }
    int max = req.getMaxReturnedLocations();
    if (max <= 0) {
      // uint32 on the wire: Java callers that set a negative int send a huge value.
      throw NyalaException.invalidArgument("max_returned_locations must be positive, got %d",
          max);
    }
    return max;
  }

  /** The answer computed from the catalog; validates first. */
  public GetTableLocationsResponsePB lookup(GetTableLocationsRequestPB req) {
    return lookup(req.getTable(), req, validate(req));
  }

  /**
   * The answer for a request that {@link #validate} accepted with {@code max}. Every replica in
   * the catalog is a voter (a joining replica enters the catalog once the tablet reports it in
   * its committed configuration), so both replica filters return the same replicas.
   */
  GetTableLocationsResponsePB lookup(TableIdentifierPB table, GetTableLocationsRequestPB req,
      int max) {
    return lookup(table, req, max, () -> false, false).answer();
  }

  /**
   * An answer, whether the catalog state it was read from is that of the version a cache keys
   * it under, and then, if asked, the table's tablet bounds in that state.
   *
   * @param atVersion bounds null unless this held during the read
   */
  record Read(GetTableLocationsResponsePB answer, boolean atVersion, TabletBounds bounds) {}

  /**
   * As {@link #lookup(TableIdentifierPB, GetTableLocationsRequestPB, int)}; {@code atVersion}
   * is asked under the catalog lock, during the same read, whether the state read is still that
   * of the version the caller read before (every change that bumps a version holds the lock).
   */
  Read lookup(TableIdentifierPB table, GetTableLocationsRequestPB req, int max,
      BooleanSupplier atVersion, boolean withBounds) {
    ByteString start = req.getPartitionKeyStart();
    ByteString end = req.getPartitionKeyEnd();
    record Found(List<SysTabletEntryPB> tablets, boolean atVersion, TabletBounds bounds) {}
    Found found = catalog.read(s -> {
      String tableId = CatalogManager.findTable(s, table).getTableId();
      NavigableMap<ByteString, String> byStart = s.tabletIdsOf(tableId);
      ByteString from = byStart.floorKey(start);
      NavigableMap<ByteString, String> tail =
          from == null ? byStart : byStart.tailMap(from, true);
      List<SysTabletEntryPB> out = new ArrayList<>();
      for (Map.Entry<ByteString, String> e : tail.entrySet()) {
        if (out.size() >= max || (!end.isEmpty() && compare(e.getKey(), end) >= 0)) {
          break;
        }
        SysTabletEntryPB t = s.tablet(e.getValue());
        ByteString tabletEnd = t.getPartition().getPartitionKeyEnd();
        if (!tabletEnd.isEmpty() && compare(tabletEnd, start) <= 0) {
          continue; // the floor tablet ends before start (a gap in the key space)
        }
        out.add(t);
      }
      boolean at = atVersion.getAsBoolean();
      return new Found(out, at, at && withBounds ? bounds(s, byStart) : null);
    });
    return new Read(build(found.tablets(), req.getInternTsInfosInResponse()), found.atVersion(),
        found.bounds());
  }

  private static TabletBounds bounds(CatalogState s, NavigableMap<ByteString, String> byStart) {
    List<TabletBounds.Range> ranges = new ArrayList<>(byStart.size());
    for (Map.Entry<ByteString, String> e : byStart.entrySet()) {
      ranges.add(new TabletBounds.Range(e.getKey(),
          s.tablet(e.getValue()).getPartition().getPartitionKeyEnd()));
    }
    return new TabletBounds(ranges);
  }

  private GetTableLocationsResponsePB build(List<SysTabletEntryPB> tablets, boolean intern) {
    GetTableLocationsResponsePB.Builder resp = GetTableLocationsResponsePB.newBuilder()
        .setTtlMillis(TTL_MILLIS);
    Map<String, Integer> internIdx = new HashMap<>();
    for (SysTabletEntryPB t : tablets) {
      TabletLocationsPB.Builder loc = TabletLocationsPB.newBuilder()
          .setTabletId(t.getTabletId())
          .setPartition(t.getPartition());
      String leader = leaderOf(t);
      for (RaftPeerPB p : t.getReplicasList()) {
        TabletLocationsPB.ReplicaPB.Builder r = TabletLocationsPB.ReplicaPB.newBuilder()
            .setRole(p.getUuid().equals(leader) ? RaftRolePB.LEADER : RaftRolePB.FOLLOWER);
        if (intern) {
          Integer idx = internIdx.get(p.getUuid());
          if (idx == null) {
            idx = resp.getTsInfosCount();
            internIdx.put(p.getUuid(), idx);
            resp.addTsInfos(tsInfo(p));
          }
          r.setTsInfoIdx(idx);
        } else {
          r.setTsInfo(tsInfo(p)).setTsInfoIdx(-1);
        }
        loc.addReplicas(r);
      }
      resp.addTabletLocations(loc);
    }
    return resp.build();
  }

  /**
   * The reported leader; none for a hibernated tablet (a client then calls any replica, which
   * wakes the group: docs/dense-nodes.md); else the one persisted when the tablet became RUNNING.
   */
  private String leaderOf(SysTabletEntryPB t) {
    ReplicaReports.Leader l = reports.leader(t.getTabletId());
    if (l != null) {
      return l.uuid();
    }
    return reports.isHibernated(t.getTabletId()) ? null : t.getLeaderUuid();
  }

  /** From the registry when the tserver is registered, else from the catalog's peer entry. */
  private TSInfoPB tsInfo(RaftPeerPB p) {
    TSDescriptor d = tsManager.get(p.getUuid());
    if (d != null) {
      return d.toTsInfo();
    }
    return TSInfoPB.newBuilder()
        .setUuid(p.getUuid())
        .setRpcAddress(p.getRpcAddress())
        .setRaftAddress(p.getRaftAddress())
        .build();
  }

  private static int compare(ByteString a, ByteString b) {
    return ByteString.unsignedLexicographicalComparator().compare(a, b);
  }

  private static String hex(ByteString b) {
    StringBuilder sb = new StringBuilder("0x");
    for (int i = 0; i < b.size(); i++) {
      sb.append(String.format("%02x", b.byteAt(i)));
    }
    return sb.toString();
  }
}
