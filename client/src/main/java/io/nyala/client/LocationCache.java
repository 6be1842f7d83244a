package io.nyala.client;

import com.google.protobuf.ByteString;
import io.nyala.client.locations.TableLocations;
import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Deadline;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.master.TableIdentifierPB;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tablet location caches of every table a client has written to or scanned, by table id,
 * each filled from the leader master's GetTableLocations (see docs/architecture.md).
 *
 * <p>DDL drops a table's cache when the table is renamed or deleted, so that the next write or
 * scan looks its tablets up again. Thread-safe: the map is concurrent and each
 * {@link TableLocations} guards itself.
 */
final class LocationCache {
  /** How many tablets one location lookup asks for, so a scan needs few lookups. */
  static final int LOCATIONS_PER_LOOKUP = 20;

  private final MasterProxy master;
  private final ConcurrentHashMap<String, TableLocations> byTableId = new ConcurrentHashMap<>();

  LocationCache(MasterProxy master) {
    this.master = master;
  }

  /**
   * The location cache of a table.
   *
   * @param table the table
   * @return its cache, made on first use
   */
  TableLocations of(NyalaTable table) {
    return byTableId.computeIfAbsent(table.getTableId(), id -> new TableLocations(
        table.getName(), (key, d) -> fetch(id, table.getName(), key, d), System::nanoTime));
  }

  /** Drops the cache of the table with this id: its entries carry an outdated name. */
  void forgetTableId(String tableId) {
    byTableId.remove(tableId);
  }

  /** Drops the cache of every table with this name. */
  void forgetTableNamed(String name) {
    byTableId.values().removeIf(l -> l.tableName().equals(name));
  }

  private CompletableFuture<GetTableLocationsResponsePB> fetch(String tableId, String name,
      byte[] start, Deadline d) {
    GetTableLocationsRequestPB req = GetTableLocationsRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableId(tableId).setTableName(name))
        .setPartitionKeyStart(ByteString.copyFrom(start))
        .setMaxReturnedLocations(LOCATIONS_PER_LOOKUP)
        .setInternTsInfosInResponse(true).build();
    return master.call("GetTableLocations of table '" + name + "'", req,
        MasterServiceStub::getTableLocations, GetTableLocationsResponsePB::getError, d);
  }
}
