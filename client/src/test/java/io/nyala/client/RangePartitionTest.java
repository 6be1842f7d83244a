package io.nyala.client;

import static io.nyala.client.ClientFixture.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.fake.FakeTablet;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.Schema;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Range partitions from the client's side: creating, routing writes, pruning scans. */
@Timeout(30)
class RangePartitionTest {
  private final ClientFixture f = new ClientFixture(1, 3);
  private final Schema schema = ClientFixture.schema();

  @AfterEach
  void tearDown() {
    f.close();
  }

  /** Two hash buckets on key x ranges [0, 100) and [200, 300). */
  private NyalaTable createTable() {
    CreateTableOptions o = new CreateTableOptions().setNumReplicas(1)
        .addHashPartitions(List.of("key"), 2)
        .setRangePartitionColumns(List.of("key"))
        .addRangePartition(schema.newPartialRow().addLong("key", 200),
            schema.newPartialRow().addLong("key", 300))
        .addRangePartition(schema.newPartialRow().addLong("key", 0),
            schema.newPartialRow().addLong("key", 100));
    return f.client.createTable("r", schema, o);
  }

  @Test
  void rowsInAGapFailAloneNamingTheTableAndTheValue() {
    NyalaTable t = createTable();
    assertThat(f.cluster.table("r").tablets()).hasSize(4);
    NyalaSession s = f.client.newSession();
    s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    s.apply(insert(t, 5, "a"));
    s.apply(insert(t, 150, "gap"));
    s.apply(insert(t, 250, "b"));
    s.apply(insert(t, -1, "below"));
    List<OperationResponse> rs = s.flush();
    assertThat(rs.get(0).hasRowError()).as("%s", rs.get(0)).isFalse();
    assertThat(rs.get(2).hasRowError()).as("%s", rs.get(2)).isFalse();
    for (int i : new int[] {1, 3}) {
      ErrorStatus e = rs.get(i).getRowError().getErrorStatus();
      assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND);
      assertThat(e.message()).contains("table 'r': no range partition covers row (key="
          + (i == 1 ? "150)" : "-1)"));
    }
    int rows = f.cluster.table("r").tablets().stream().mapToInt(FakeTablet::rowCount).sum();
    assertThat(rows).isEqualTo(2);
  }

  @Test
  void rangePredicatesScanOnlyTheMatchingRangesTablets() {
    NyalaTable t = createTable();
    f.insertRange(t, 0, 20);
    f.insertRange(t, 200, 230);
    List<FakeTablet> tablets = f.cluster.table("r").tablets();
    // Partition key order: bucket 0 x both ranges, then bucket 1 x both ranges.
    Set<String> upper = Set.of(tablets.get(1).id(), tablets.get(3).id());

    assertThat(count(t, ColumnPredicate.comparison("key", ColumnPredicate.Op.GREATER_EQUAL,
        200L))).isEqualTo(30);
    assertThat(scannedTablets()).isEqualTo(upper);

    f.cluster.scanOpens.clear();
    assertThat(count(t, ColumnPredicate.comparison("key", ColumnPredicate.Op.LESS, 150L)))
        .isEqualTo(20);
    assertThat(scannedTablets()).doesNotContainAnyElementsOf(upper).hasSize(2);

    f.cluster.scanOpens.clear();
    assertThat(count(t, ColumnPredicate.comparison("key", ColumnPredicate.Op.EQUAL, 205L)))
        .isEqualTo(1);
    assertThat(scannedTablets()).hasSize(1).isSubsetOf(upper);

    f.cluster.scanOpens.clear();
    assertThat(count(t, ColumnPredicate.comparison("key", ColumnPredicate.Op.GREATER, 100L),
        ColumnPredicate.comparison("key", ColumnPredicate.Op.LESS, 200L))).isZero();
    assertThat(scannedTablets()).isEmpty();
  }

  @Test
  void splitRowsSplitTheUnboundedRange() {
    CreateTableOptions o = new CreateTableOptions().setNumReplicas(1)
        .setRangePartitionColumns(List.of("key"))
        .addSplitRow(schema.newPartialRow().addLong("key", 10))
        .addSplitRow(schema.newPartialRow().addLong("key", 20));
    NyalaTable t = f.client.createTable("s", schema, o);
    assertThat(t.getPartitionSchema().ranges()).hasSize(3);
    f.insertRange(t, -5, 25);
    assertThat(f.cluster.table("s").tablets().stream().map(FakeTablet::rowCount))
        .containsExactly(15, 10, 5);
  }

  @Test
  void badOptionsFailNamingTheMistake() {
    assertThatThrownBy(() -> f.client.createTable("x", schema, new CreateTableOptions()
        .addSplitRow(schema.newPartialRow().addLong("key", 1))))
        .hasMessageContaining("need setRangePartitionColumns first");
    assertThatThrownBy(() -> f.client.createTable("x", schema, new CreateTableOptions()
        .setRangePartitionColumns(List.of("val"))))
        .hasMessageContaining("range partition column 'val' is not a primary key column");
    assertThatThrownBy(() -> f.client.createTable("x", schema, new CreateTableOptions()
        .setRangePartitionColumns(List.of("key"))
        .addRangePartition(schema.newPartialRow().addLong("key", 0),
            schema.newPartialRow().addLong("key", 10))
        .addRangePartition(schema.newPartialRow().addLong("key", 5),
            schema.newPartialRow())))
        .hasMessageContaining("range partition [(key=0), (key=10)) overlaps range partition "
            + "[(key=5), unbounded)");
    assertThatThrownBy(() -> new CreateTableOptions().setRangePartitionColumns(List.of()))
        .hasMessageContaining("at least one column");
  }

  @Test
  void rangeAltersNeedRangeColumnsAndWholeBounds() {
    f.createTable("h", 2, 1);
    assertThatThrownBy(() -> f.client.alterTable("h", new AlterTableOptions()
        .addRangePartition(schema.newPartialRow().addLong("key", 0), schema.newPartialRow())))
        .hasMessageContaining("alter table 'h': the table has no range partition columns");
    createTable();
    assertThatThrownBy(() -> f.client.alterTable("r", new AlterTableOptions()
        .dropRangePartition(schema.newPartialRow().addString("val", "x"),
            schema.newPartialRow())))
        .hasMessageContaining("alter table 'r': lower bound sets column 'val', which is not a "
            + "range partition column");
  }

  @Test
  void prefixSuccessorBoundsEveryKeyWithThePrefix() {
    assertThat(RangePruning.prefixSuccessor(new byte[] {1, 2})).containsExactly(1, 3);
    assertThat(RangePruning.prefixSuccessor(new byte[] {1, (byte) 0xff}))
        .containsExactly(2);
    assertThat(RangePruning.prefixSuccessor(new byte[] {(byte) 0xff})).isNull();
  }

  private int count(NyalaTable t, ColumnPredicate... predicates) {
    ScannerBuilder b = t.newScannerBuilder();
    for (ColumnPredicate p : predicates) {
      b.addPredicate(p);
    }
    int n = 0;
    try (NyalaScanner s = b.build()) {
      while (s.hasMoreRows()) {
        n += s.nextRows().getNumRows();
      }
    }
    return n;
  }

  private Set<String> scannedTablets() {
    return f.cluster.scanOpens.stream().map(NewScanRequestPB::getTabletId)
        .collect(Collectors.toSet());
  }
}
