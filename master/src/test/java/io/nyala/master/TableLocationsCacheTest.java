package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.master.locations.TableLocationsCache;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The table locations cache: hits, invalidation by every kind of change, capacity. */
@Timeout(120)
class TableLocationsCacheTest extends LocationsTestBase {
  @Test
  void repeatedLookupsHitAfterTheFirst() throws Exception {
    startWithTable("t", 4);
    GetTableLocationsResponsePB first = locate("t");
    long hits = metric("hits");
    long inserts = metric("inserts");
    for (int i = 0; i < 10; i++) {
      assertThat(locate("t")).isEqualTo(first);
    }
    assertThat(metric("hits")).isEqualTo(hits + 10);
    assertThat(metric("inserts")).isEqualTo(inserts);
    assertThat(metric("lookups")).isEqualTo(metric("hits") + metric("misses"));
    assertThat(m.master.metrics().renderPrometheus())
        .contains("table_locations_cache_memory_usage_bytes");
  }

  /**
   * Lookups from rows' partition keys, as the Java client sends them, share the entry of the
   * tablet the keys fall in, and each gets what a lookup from its own key computes.
   */
  @Test
  void lookupsFromKeysOfOneTabletShareOneEntry() throws Exception {
    startWithTable("t", 6);
    ByteString start = tabletsOf(tableId("t")).get(2).getPartition().getPartitionKeyStart();
    List<ByteString> keys = List.of(start.concat(ByteString.copyFromUtf8("row-1")), start,
        start.concat(ByteString.copyFromUtf8("row-2")),
        start.concat(ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xff})));
    long hits = metric("hits");
    long inserts = metric("inserts");
    for (ByteString key : keys) {
      GetTableLocationsRequestPB req = fromKey("t", key);
      GetTableLocationsResponsePB r = m.stub().getTableLocations(req);
      assertThat(r).isEqualTo(computed(req));
      assertThat(r.getTabletLocations(0).getPartition().getPartitionKeyStart()).isEqualTo(start);
    }
    assertThat(metric("inserts")).isEqualTo(inserts + 1);
    assertThat(metric("hits")).isEqualTo(hits + keys.size() - 1);
  }

  @Test
  void leaderChangeIsSeenByTheNextLookup() throws Exception {
    startWithTable("t", 2);
    SysTabletEntryPB t = tabletsOf(tableId("t")).get(0);
    assertThat(leaderOf(locate("t").getTabletLocations(0)))
        .isEqualTo(t.getReplicas(0).getUuid());
    setLeader(t.getTabletId(), t.getReplicas(1).getUuid(), 2);
    assertThat(leaderOf(locate("t").getTabletLocations(0)))
        .isEqualTo(t.getReplicas(1).getUuid());
  }

  @Test
  void replicaChangeIsSeenByTheNextLookup() throws Exception {
    startWithTable("t", 2);
    SysTabletEntryPB t = tabletsOf(tableId("t")).get(0);
    assertThat(locate("t").getTabletLocations(0).getReplicasCount()).isEqualTo(3);
    putTablet(t.toBuilder().setReplicas(2, peer("new-replica", 9)).build());
    assertThat(locate("t").getTabletLocations(0).getReplicasList())
        .extracting(r -> r.getTsInfo().getUuid()).contains("new-replica");
  }

  @Test
  void dropIsSeenByTheNextLookup() throws Exception {
    startWithTable("t", 2);
    assertThat(locate("t").hasError()).isFalse();
    m.stub().deleteTable(io.nyala.common.proto.master.DeleteTableRequestPB.newBuilder()
        .setTable(Tables.byName("t")).build());
    GetTableLocationsResponsePB r = m.stub().getTableLocations(
        GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("t")).build());
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
  }

  @Test
  void alterIsSeenByTheNextLookup() throws Exception {
    startWithTable("t", 2);
    GetTableLocationsResponsePB before = locate("t");
    long misses = metric("misses");
    m.stub().alterTable(io.nyala.common.proto.master.AlterTableRequestPB.newBuilder()
        .setTable(Tables.byName("t")).setNewTableName("t2").build());
    GetTableLocationsResponsePB r = m.stub().getTableLocations(
        GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("t")).build());
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(locate("t2").getTabletLocationsList())
        .isEqualTo(before.getTabletLocationsList());
    assertThat(metric("misses")).isEqualTo(misses + 2);
    locate("t2");
    assertThat(metric("misses")).isEqualTo(misses + 2);
    m.stub().alterTable(io.nyala.common.proto.master.AlterTableRequestPB.newBuilder()
        .setTable(Tables.byName("t2")).addAlterSchemaSteps(AlterTableTest.drop("val")).build());
    locate("t2");
    assertThat(metric("misses")).isEqualTo(misses + 3);
  }

  @Test
  void leadershipResetEmptiesTheCache() throws Exception {
    startWithTable("t", 2);
    locate("t");
    TableLocationsCache cache = m.master.locationsCache();
    assertThat(cache.size()).isPositive();
    cache.reset();
    cache.cleanUp();
    assertThat(cache.size()).isZero();
    long misses = metric("misses");
    locate("t");
    assertThat(metric("misses")).isEqualTo(misses + 1);
  }

  @Test
  void capacityIsRespectedUnderManyTables() throws Exception {
    startWithTable("t0", 6, "--table_locations_cache_capacity_mb=1");
    for (int i = 1; i < 10; i++) {
      createRunning("t" + i, 6);
    }
    // Distinct limits make distinct entries: 10 tables x 400 limits, about 10 MiB in all.
    for (int i = 0; i < 10; i++) {
      for (int k = 0; k < 400; k++) {
        GetTableLocationsResponsePB r = m.master.getTableLocations(
            GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("t" + i))
                .setMaxReturnedLocations(6 + k).build());
        assertThat(r.getTabletLocationsCount()).isPositive();
      }
    }
    TableLocationsCache cache = m.master.locationsCache();
    cache.cleanUp();
    assertThat(m.master.metrics().value("table_locations_cache_memory_usage_bytes"))
        .isPositive().isLessThanOrEqualTo(1L << 20);
    assertThat(metric("evictions")).isPositive();
    assertThat(metric("inserts")).isEqualTo(4000);
  }

  @Test
  void capacityZeroTurnsTheCacheOff() throws Exception {
    startWithTable("t", 2, "--table_locations_cache_capacity_mb=0");
    locate("t");
    locate("t");
    assertThat(metric("hits")).isZero();
    assertThat(metric("misses")).isEqualTo(2);
    m.master.locationsCache().setCapacityMb(4);
    locate("t");
    locate("t");
    assertThat(metric("hits")).isEqualTo(1);
  }

  @Test
  void badRequestsAreRejectedBeforeTheCache() throws Exception {
    startWithTable("t", 2);
    GetTableLocationsResponsePB r = m.stub().getTableLocations(
        GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("t"))
            .setMaxReturnedLocations(0).build());
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(r.getError().getMessage()).contains("max_returned_locations").contains("0");
    r = m.stub().getTableLocations(GetTableLocationsRequestPB.newBuilder()
        .setTable(Tables.byName("t")).setMaxReturnedLocations(-5).build());
    assertThat(r.getError().getMessage()).contains("max_returned_locations").contains("-5");
    r = m.stub().getTableLocations(GetTableLocationsRequestPB.newBuilder()
        .setTable(Tables.byName("t")).setReplicaTypeFilterValue(7).build());
    assertThat(r.getError().getMessage()).contains("replica_type_filter").contains("7");
    assertThat(metric("lookups")).isZero();
  }
}
