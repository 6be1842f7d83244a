package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.HashBucketSchemaPB;
import io.nyala.common.proto.PartitionSchemaPB;
import io.nyala.common.proto.RangeBoundsPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableRequestPB.Step;
import io.nyala.common.proto.master.AlterTableResponsePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** AlterTable adding and dropping range partitions: tablets made and deleted, bad ranges. */
@Timeout(60)
class RangeAlterTest extends LocationsTestBase {
  private static final ColumnSchema KEY = ColumnSchema.builder("key", Type.INT64).key(true)
      .build();

  @BeforeEach
  void start() throws Exception {
    m = MasterFixture.start(dir);
    for (int i = 0; i < 3; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      tservers.add(ts);
      ts.register(m.stub());
    }
  }

  static RangeBoundsPB range(long lo, long hi) {
    return RangeBoundsPB.newBuilder()
        .setLower(ByteString.copyFrom(KeyEncoder.encode(List.of(KEY), new Object[] {lo})))
        .setUpper(ByteString.copyFrom(KeyEncoder.encode(List.of(KEY), new Object[] {hi})))
        .build();
  }

  /** Two hash buckets on key x range [0, 10). */
  private String create(String name) {
    CreateTableRequestPB req = CreateTableRequestPB.newBuilder().setName(name)
        .setSchema(Tables.schema()).setNumReplicas(3)
        .setPartitionSchema(PartitionSchemaPB.newBuilder()
            .addHashSchemas(HashBucketSchemaPB.newBuilder().addColumns("key").setNumBuckets(2))
            .addRangeColumns("key").addRanges(range(0, 10)))
        .build();
    return m.stub().createTable(req).getTableId();
  }

  private AlterTableResponsePB alter(String table, Step... steps) {
    return m.stub().alterTable(AlterTableRequestPB.newBuilder().setTable(Tables.byName(table))
        .addAllAlterSchemaSteps(List.of(steps)).build());
  }

  static Step add(RangeBoundsPB r) {
    return Step.newBuilder().setAddRangePartition(
        AlterTableRequestPB.AddRangePartition.newBuilder().setRange(r)).build();
  }

  static Step drop(RangeBoundsPB r) {
    return Step.newBuilder().setDropRangePartition(
        AlterTableRequestPB.DropRangePartition.newBuilder().setRange(r)).build();
  }

  private Set<String> ids(List<SysTabletEntryPB> tablets) {
    return tablets.stream().map(SysTabletEntryPB::getTabletId).collect(Collectors.toSet());
  }

  @Test
  void addedRangesGetTabletsAndDroppedRangesLoseThem() {
    String id = create("t");
    Set<String> first = ids(tabletsOf(id));
    assertThat(first).hasSize(2);

    AlterTableResponsePB r = alter("t", add(range(10, 20)));
    assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
    assertThat(r.getSchemaVersion()).isEqualTo(1);
    List<SysTabletEntryPB> now = tabletsOf(id);
    assertThat(now).hasSize(4);
    Set<String> added = ids(now.stream().filter(t -> t.getPartition().getRange()
        .equals(range(10, 20))).toList());
    assertThat(added).hasSize(2).doesNotContainAnyElementsOf(first);
    await().atMost(Duration.ofSeconds(20)).until(() -> tservers.stream()
        .flatMap(ts -> ts.creates.stream()).map(CreateTabletRequestPB::getTabletId)
        .collect(Collectors.toSet()).containsAll(added));
    assertThat(m.stub().getTableSchema(GetTableSchemaRequestPB.newBuilder()
        .setTable(Tables.byName("t")).build()).getPartitionSchema().getRangesList())
        .containsExactly(range(0, 10), range(10, 20));

    r = alter("t", drop(range(0, 10)));
    assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
    assertThat(ids(tabletsOf(id))).isEqualTo(added);
    await().atMost(Duration.ofSeconds(20)).until(() -> tservers.stream()
        .flatMap(ts -> ts.deletes.stream()).filter(DeleteTabletRequestPB::getTabletDropped)
        .map(DeleteTabletRequestPB::getTabletId).collect(Collectors.toSet())
        .containsAll(first));
  }

  /**
   * The locations cache keeps one answer per first tablet (docs/performance.md, "Locations over
   * RPC"): lookups from keys in a gap between ranges get the tablets after the gap, and once a
   * range fills the gap, its tablet.
   */
  @Test
  void lookupsFromKeysInAGapFollowTheRanges() {
    String id = create("t");
    assertThat(alter("t", add(range(20, 30))).hasError()).isFalse();
    awaitRunning(id);
    // The first tablet in key order: bucket 0, [0, 10); its end key starts the gap.
    ByteString gapStart = tabletsOf(id).get(0).getPartition().getPartitionKeyEnd();
    List<ByteString> keys = List.of(gapStart.concat(ByteString.copyFromUtf8("x")), gapStart,
        gapStart.concat(ByteString.copyFromUtf8("y")));
    long inserts = metric("inserts");
    for (ByteString key : keys) {
      assertThat(firstRangeFrom(key)).isEqualTo(range(20, 30));
    }
    assertThat(metric("inserts")).isEqualTo(inserts + 1);

    assertThat(alter("t", add(range(10, 20))).hasError()).isFalse();
    awaitRunning(id);
    for (ByteString key : keys) {
      assertThat(firstRangeFrom(key)).isEqualTo(range(10, 20));
    }
  }

  /** The range of the first tablet a lookup from {@code key} gets, checked against the catalog. */
  private RangeBoundsPB firstRangeFrom(ByteString key) {
    GetTableLocationsRequestPB req = fromKey("t", key);
    GetTableLocationsResponsePB r = m.stub().getTableLocations(req);
    assertThat(r).isEqualTo(computed(req));
    return r.getTabletLocations(0).getPartition().getRange();
  }

  @Test
  void overlappingUnknownAndMixedChangesAreRefusedNamingTheRange() {
    create("t");
    createRunning("hashed", 2);
    assertRefused(alter("t", add(range(5, 15))),
        "alter table 't': range partition [(key=5), (key=15)) overlaps range partition "
            + "[(key=0), (key=10))");
    assertRefused(alter("t", drop(range(0, 5))),
        "alter table 't': no range partition [(key=0), (key=5)) to drop");
    assertRefused(alter("t", add(range(20, 30)), AlterTableTest.drop("val")),
        "cannot be combined with column changes");
    assertRefused(alter("hashed", add(range(0, 1))), "no range partition columns");
    assertRefused(alter("t", add(RangeBoundsPB.newBuilder()
        .setLower(range(5, 6).getLower()).setUpper(range(5, 6).getLower()).build())),
        "lower bound must be below its upper bound");
    assertThat(tabletsOf(tableId("t"))).hasSize(2);
  }

  private static void assertRefused(AlterTableResponsePB r, String message) {
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(r.getError().getMessage()).contains(message);
  }

  @Test
  void createRefusesRangeColumnsWithoutRanges() {
    CreateTableRequestPB req = CreateTableRequestPB.newBuilder().setName("x")
        .setSchema(Tables.schema()).setNumReplicas(3)
        .setPartitionSchema(PartitionSchemaPB.newBuilder().addRangeColumns("key")).build();
    var resp = m.stub().createTable(req);
    assertThat(resp.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(resp.getError().getMessage()).contains("table 'x'", "needs at least one range");
  }
}
