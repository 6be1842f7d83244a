package io.nyala.client;

import static io.nyala.client.ClientFixture.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.client.fake.FakeTablet;
import io.nyala.client.fake.FakeTabletServer;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.PartialRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class ScanTest {
  private final ClientFixture f = new ClientFixture(1, 3);

  @AfterEach
  void tearDown() {
    f.close();
  }

  /** New scan requests in arrival order over all tablet servers. */
  private List<NewScanRequestPB> newScans() {
    return List.copyOf(f.cluster.scanOpens);
  }

  @Test
  void pagesThroughEveryTabletInPartitionOrder() {
    NyalaTable t = f.createTable("m", 4, 1);
    f.insertRange(t, 0, 100);
    List<Long> keys = new ArrayList<>();
    int pages = 0;
    try (NyalaScanner s = t.newScannerBuilder().batchSizeRows(7).build()) {
      while (s.hasMoreRows()) {
        RowResultIterator page = s.nextRows();
        assertThat(page.getNumRows()).isBetween(1, 7);
        pages++;
        for (RowResult r : page) {
          keys.add(r.getLong("key"));
          assertThat(r.getString("val")).isEqualTo("v" + r.getLong("key"));
        }
      }
    }
    assertThat(keys).hasSize(100).doesNotHaveDuplicates();
    assertThat(pages).isGreaterThanOrEqualTo(100 / 7);
    // Tablets were visited in partition key order, each once, each in key order.
    List<String> visited = newScans().stream().map(NewScanRequestPB::getTabletId).toList();
    List<String> expected = f.cluster.table("m").tablets().stream()
        .filter(x -> x.rowCount() > 0).map(FakeTablet::id).toList();
    assertThat(visited).containsExactlyElementsOf(expected);
    int from = 0;
    for (FakeTablet tablet : f.cluster.table("m").tablets()) {
      assertThat(keys.subList(from, from + tablet.rowCount())).isSorted();
      from += tablet.rowCount();
    }
  }

  /**
   * A hibernated tablet's locations name no leader: the scan opens on a replica, which wakes the
   * group and names the new leader, and is read there (docs/dense-nodes.md).
   */
  @Test
  void aTabletWithNoLeaderInLocationsIsScannedThroughTheHintedLeader() {
    NyalaTable t = f.createTable("m", 1, 3);
    f.insertRange(t, 0, 10);
    FakeTablet tablet = f.tablet("m", 0);
    tablet.setNoLeaderInMaster(true);
    tablet.setLeader(tablet.replicas().get(1));
    try (NyalaClient fresh = NyalaClient.builder(f.cluster.masterAddresses())
            .defaultOperationTimeoutMs(10_000).build();
        NyalaScanner s = fresh.openTable("m").newScannerBuilder().build()) {
      int rows = 0;
      while (s.hasMoreRows()) {
        rows += s.nextRows().getNumRows();
      }
      assertThat(rows).isEqualTo(10);
    }
    assertThat(tablet.replicas().get(0).scans).isNotEmpty();
    assertThat(tablet.replicas().get(1).scans).isNotEmpty();
  }

  @Test
  void theLimitAppliesAcrossTablets() {
    NyalaTable t = f.createTable("m", 2, 1);
    f.insertRange(t, 0, 40);
    int firstTabletRows = f.tablet("m", 0).rowCount();
    long limit = firstTabletRows + 3;
    List<Long> keys;
    try (NyalaScanner s = t.newScannerBuilder().batchSizeRows(4).limit(limit).build()) {
      keys = keys(s);
    }
    assertThat(keys).hasSize((int) limit).doesNotHaveDuplicates();
    List<NewScanRequestPB> opens = newScans();
    assertThat(opens).hasSize(2);
    assertThat(opens.get(0).getLimit()).isEqualTo(limit);
    assertThat(opens.get(1).getLimit()).isEqualTo(3);
    // The second tablet's scanner was still open when the limit was hit: it was closed.
    await().atMost(Duration.ofSeconds(5)).until(() ->
        f.cluster.tservers().stream().mapToInt(FakeTabletServer::openScanners).sum() == 0);
  }

  /** Prefetching (docs/performance.md, "Scans"): one page ahead, never more, released on close. */
  @Test
  void theNextPageIsAskedForBeforeTheApplicationAsksAndClosingEarlyReleasesIt() {
    NyalaTable t = f.createTable("m", 1, 1);
    f.insertRange(t, 0, 50);
    FakeTabletServer ts = f.tablet("m", 0).replicas().get(0);
    try (NyalaScanner s = t.newScannerBuilder().batchSizeRows(5).prefetching(true).build()) {
      assertThat(s.nextRows().getNumRows()).isEqualTo(5);
      await().atMost(Duration.ofSeconds(5)).until(() -> ts.scans.size() >= 2);
      assertThat(s.nextRows().getNumRows()).isEqualTo(5);
      await().atMost(Duration.ofSeconds(5)).until(() -> ts.scans.size() >= 3);
      assertThat(ts.scans).hasSize(3);
      assertThat(ts.openScanners()).isEqualTo(1);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> ts.openScanners() == 0);
  }

  @Test
  void withoutPrefetchingAPageIsAskedForOnlyWhenWanted() {
    NyalaTable t = f.createTable("m", 1, 1);
    f.insertRange(t, 0, 20);
    FakeTabletServer ts = f.tablet("m", 0).replicas().get(0);
    List<Long> keys = new ArrayList<>();
    try (NyalaScanner s = t.newScannerBuilder().batchSizeRows(5).prefetching(false).build()) {
      s.nextRows().forEach(r -> keys.add(r.getLong("key")));
      assertThat(ts.scans).hasSize(1);
      for (RowResult r : s) {
        keys.add(r.getLong("key"));
      }
    }
    assertThat(keys).hasSize(20).doesNotHaveDuplicates().isSorted();
    // Four pages of five, and at most one more call that finds the end.
    assertThat(ts.scans.size()).isBetween(4, 5);
  }

  @Test
  void projectionPredicatesAndKeyBounds() {
    NyalaTable t = f.createTable("m", 1, 1);
    f.insertRange(t, 0, 50);
    PartialRow lower = t.getSchema().newPartialRow().addLong("key", 10);
    PartialRow upper = t.getSchema().newPartialRow().addLong("key", 40);
    List<RowResult> rows = new ArrayList<>();
    try (NyalaScanner s = t.newScannerBuilder()
        .setProjectedColumnNames(List.of("val", "key"))
        .addPredicate(ColumnPredicate.comparison("key", ColumnPredicate.Op.GREATER_EQUAL, 20))
        .lowerBoundPrimaryKey(lower).exclusiveUpperBoundPrimaryKey(upper)
        .build()) {
      s.forEach(rows::add);
    }
    assertThat(rows).hasSize(20);
    RowResult first = rows.get(0);
    assertThat(first.getSchema().columnCount()).isEqualTo(2);
    assertThat(first.getString(0)).isEqualTo("v20");
    assertThat(first.getLong(1)).isEqualTo(20);
    assertThat(rows.get(19).getLong("key")).isEqualTo(39);
  }

  @Test
  void unknownColumnsFailWhenBuilding() {
    NyalaTable t = f.createTable("m", 1, 1);
    assertThatThrownBy(() -> t.newScannerBuilder()
        .setProjectedColumnNames(List.of("nope")).build())
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("'nope'", "'m'");
        });
    assertThatThrownBy(() -> t.newScannerBuilder()
        .addPredicate(ColumnPredicate.comparison("key", ColumnPredicate.Op.EQUAL, "x")).build())
        .isInstanceOfSatisfying(NyalaException.class, e ->
            assertThat(e.getMessage()).contains("'key'"));
  }

  @Test
  void equalityOnTheHashColumnScansOneTablet() {
    NyalaTable t = f.createTable("m", 4, 1);
    f.insertRange(t, 0, 20);
    List<Long> keys;
    try (NyalaScanner s = t.newScannerBuilder()
        .addPredicate(ColumnPredicate.inList("key", List.of(7L))).build()) {
      keys = keys(s);
    }
    assertThat(keys).containsExactly(7L);
    assertThat(newScans()).hasSize(1);
  }

  @Test
  void aLeaderChangeMidScanRestartsAfterTheLastKeyAtTheSameSnapshot() {
    NyalaTable t = f.createTable("m", 1, 3);
    f.insertRange(t, 0, 50);
    FakeTablet tablet = f.tablet("m", 0);
    FakeTabletServer oldLeader = tablet.leader();
    FakeTabletServer newLeader = tablet.replicas().get(1);
    List<Long> keys = new ArrayList<>();
    try (NyalaScanner s = t.newScannerBuilder().batchSizeRows(10).build()) {
      keys.addAll(keys(s.nextRows()));
      tablet.setLeader(newLeader);
      while (s.hasMoreRows()) {
        keys.addAll(keys(s.nextRows()));
      }
    }
    assertThat(keys).hasSize(50).isSorted().doesNotHaveDuplicates();

    ScanRequestPB first = oldLeader.scans.get(0);
    assertThat(first.getNewScanRequest().getStartPrimaryKey().isEmpty()).isTrue();
    ScanRequestPB restart = newLeader.scans.stream().filter(ScanRequestPB::hasNewScanRequest)
        .findFirst().orElseThrow();
    byte[] lastOfPage1 = io.nyala.common.row.KeyEncoder.encode(t.getSchema().keyColumns(),
        new Object[] {9L});
    byte[] expectedStart = java.util.Arrays.copyOf(lastOfPage1, lastOfPage1.length + 1);
    assertThat(restart.getNewScanRequest().getStartPrimaryKey().toByteArray())
        .isEqualTo(expectedStart);
    assertThat(restart.getNewScanRequest().getReadMode())
        .isEqualTo(io.nyala.common.proto.tserver.ReadModePB.READ_AT_SNAPSHOT);
    assertThat(restart.getNewScanRequest().getSnapIndex()).isEqualTo(tablet.appliedWrites())
        .isPositive();
  }

  @Test
  void anExpiredScannerIsReopenedAfterTheLastKey() {
    NyalaTable t = f.createTable("m", 1, 1);
    f.insertRange(t, 0, 30);
    FakeTabletServer ts = f.tablet("m", 0).leader();
    List<Long> keys = new ArrayList<>();
    try (NyalaScanner s = t.newScannerBuilder().batchSizeRows(10).build()) {
      keys.addAll(keys(s.nextRows()));
      ts.onNextScan((server, req) -> io.nyala.common.proto.tserver.ScanResponsePB.newBuilder()
          .setError(NyalaException.notFound("scanner '%s' not found",
              req.getScannerId().toStringUtf8()).toPb()).build());
      while (s.hasMoreRows()) {
        keys.addAll(keys(s.nextRows()));
      }
    }
    assertThat(keys).hasSize(30).isSorted().doesNotHaveDuplicates();
    assertThat(ts.scans.stream().filter(ScanRequestPB::hasNewScanRequest).count()).isEqualTo(2);
  }
}
