package io.nyala.master;

import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.master.locations.TableLocationsLookup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** A master with fake tservers and helpers to change and read table locations. */
abstract class LocationsTestBase {
  @TempDir Path dir;
  MasterFixture m;
  final List<FakeTServer> tservers = new ArrayList<>();

  @AfterEach
  void stop() {
    tservers.forEach(FakeTServer::close);
    if (m != null) {
      m.close();
    }
  }

  /** A master with three fake tservers and the given table (all tablets with a leader). */
  void startWithTable(String table, int tablets, String... flags) throws Exception {
    m = MasterFixture.start(dir, flags);
    for (int i = 0; i < 3; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      tservers.add(ts);
      ts.register(m.stub());
    }
    createRunning(table, tablets);
  }

  void createRunning(String table, int tablets) {
    awaitRunning(m.stub().createTable(Tables.create(table, tablets, 3)).getTableId());
  }

  /** Reports a leader for each of the table's tablets and waits until all are RUNNING. */
  void awaitRunning(String id) {
    for (SysTabletEntryPB t : tabletsOf(id)) {
      setLeader(t.getTabletId(), t.getReplicas(0).getUuid(), 1);
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> tabletsOf(id).stream()
        .allMatch(t -> t.getState() == SysTabletStatePB.SYS_TABLET_RUNNING));
  }

  List<SysTabletEntryPB> tabletsOf(String tableId) {
    return m.master.catalog().catalog().read(s -> s.tabletsOf(tableId));
  }

  String tableId(String name) {
    return m.master.catalog().catalog().read(s -> s.tableByName(name).getTableId());
  }

  void setLeader(String tabletId, String uuid, long term) {
    FakeTServer ts = tservers.stream().filter(t -> t.uuid.equals(uuid)).findFirst().get();
    ts.heartbeat(m.stub(), FakeTServer.incremental(FakeTServer.leader(tabletId, term)));
  }

  GetTableLocationsResponsePB locate(String table) {
    return m.master.getTableLocations(GetTableLocationsRequestPB.newBuilder()
        .setTable(Tables.byName(table)).build());
  }

  /** A request as the Java client sends it: from a row's partition key, 20 tablets, interned. */
  GetTableLocationsRequestPB fromKey(String table, ByteString key) {
    return GetTableLocationsRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableId(tableId(table)).setTableName(table))
        .setPartitionKeyStart(key).setMaxReturnedLocations(20)
        .setInternTsInfosInResponse(true).build();
  }

  /**
   * The answer computed afresh from the catalog for exactly this request, bypassing the cache,
   * as the generated service built it (a refusal in its error field).
   */
  GetTableLocationsResponsePB computed(GetTableLocationsRequestPB req) {
    TableLocationsLookup lookup = new TableLocationsLookup(m.master.catalog().catalog(),
        m.master.catalog().reports(), m.master.tsManager(), m.options().maxTableLocations);
    try {
      return lookup.lookup(req);
    } catch (NyalaException e) {
      return GetTableLocationsResponsePB.newBuilder().setError(e.toPb()).build();
    }
  }

  static String leaderOf(TabletLocationsPB loc) {
    return loc.getReplicasList().stream().filter(r -> r.getRole() == RaftRolePB.LEADER)
        .map(r -> r.getTsInfo().getUuid()).findFirst().orElse("");
  }

  /** A locations cache counter by its short name ({@code hits}, {@code misses}, ...). */
  long metric(String name) {
    return m.master.metrics().value("table_locations_cache_" + name + "_total");
  }

  /** Writes a new version of a tablet straight to the catalog (a replica change). */
  void putTablet(SysTabletEntryPB t) {
    m.master.catalog().catalog().writeSync(SysCatalogBatchPB.newBuilder()
        .addOps(SysCatalogOpPB.newBuilder().setPutTablet(t)).build());
  }

  static RaftPeerPB peer(String uuid, int port) {
    HostPort hp = new HostPort("127.0.0.1", port);
    return RaftPeerPB.newBuilder().setUuid(uuid).setRpcAddress(hp.toPb())
        .setRaftAddress(hp.toPb()).build();
  }
}
