package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The storage engine inside a real tablet server: flush triggers, the Raft log, blocks. */
@Timeout(120)
class TabletStorageTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;
  private final String tablet = RaftIds.newId();

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  private TserverOptions start(TserverOptions o) {
    ts = TserverFixture.start(o);
    return o;
  }

  private BlockTabletStore store() {
    return ts.tabletManager().get(tablet).blockStore();
  }

  /**
   * Under steady writes, flushes (and the Ratis snapshots they trigger, which purge the log) keep
   * the Raft log to a few segments.
   */
  @Test
  void flushesKeepTheRaftLogBounded() throws Exception {
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.flushThresholdSecs = 1;
    o.maintenanceIntervalMs = 100;
    o.raftProperties.put("raft.server.log.segment.size.max", "256KB");
    o.raftProperties.put("raft.server.log.purge.gap", "1");
    start(o);
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    Path current = dir.resolve("raft").resolve(RaftIds.groupId(tablet).getUuid().toString())
        .resolve("current");
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer = new Thread(() -> {
      int round = 0;
      while (!stop.get()) {
        int from = (round++ % 20) * 100;
        fx.write(ts, inserts(tablet, from, from + 100, RowOpType.UPSERT));
      }
    }, "steady-writer");
    writer.start();
    try {
      await().atMost(Duration.ofSeconds(90))
          .until(() -> ts.metrics().value("tablet_flushes_total", Map.of()) >= 10);
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        List<String> segs = segments(current);
        assertThat(segs).as("segments in %s", current).hasSizeLessThan(4);
        // Purged, not merely short: the log no longer starts at the group's first entry.
        assertThat(segs.stream().mapToLong(TabletStorageTest::firstIndex).min().orElse(0))
            .as("first index in %s", segs).isPositive();
      });
    } finally {
      stop.set(true);
      writer.join();
    }
    assertThat(store().durableIndex()).isPositive();
    assertThat(fx.scanAll(ts, tablet, 1000)).hasSize(2000);
  }

  /** The first index of a segment file: log_inprogress_FIRST or log_FIRST-LAST. */
  private static long firstIndex(String name) {
    String rest = name.startsWith("log_inprogress_") ? name.substring(15) : name.substring(4);
    return Long.parseLong(rest.split("-")[0]);
  }

  private static List<String> segments(Path current) throws IOException {
    try (Stream<Path> s = Files.list(current)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("log_")).toList();
    }
  }

  @Test
  void restartReadsFlushedRowsDeletesOrphanedBlocksAndReportsMetrics() {
    TserverOptions o = start(TserverFixture.options(dir, TserverFixture.freePort()));
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    fx.write(ts, inserts(tablet, 0, 300, RowOpType.INSERT));
    assertThat(ts.snapshotTablet(tablet)).isPositive();
    fx.write(ts, inserts(tablet, 0, 10, RowOpType.DELETE));
    store().flush();
    store().compact();
    fx.write(ts, inserts(tablet, 300, 350, RowOpType.INSERT));
    long live = ts.metrics().value("block_manager_blocks_under_management", Map.of());
    assertThat(live).isEqualTo(ts.blockManager().blockIds().size()).isPositive();
    assertThat(ts.metrics().value("tablet_flushes_total", Map.of())).isNotNegative();
    assertThat(ts.metrics().value("tablet_compaction_bytes_total", Map.of("side", "in")))
        .isNotNegative();
    // A crash between a block commit and the superblock write leaves blocks nobody lists.
    List<BlockId> orphans;
    try (BlockManager.CreationTransaction tx = ts.blockManager().newCreation()) {
      BlockManager.WritableBlock b = tx.create();
      b.append(new byte[] {1, 2, 3});
      b.finalizeBlock();
      orphans = tx.commit();
    }
    ts.close();
    start(o);
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(ts.blockManager().blockIds()).doesNotContainAnyElementsOf(orphans)
        .hasSize((int) live);
    List<Object[]> rows = fx.scanAll(ts, tablet, 1000);
    assertThat(rows).hasSize(340);
    assertThat(rows.get(0)[0]).isEqualTo(10);
  }

  @Test
  void aCorruptColumnPageFailsTheScanWithCorruptionAndTheServerKeepsServing() throws Exception {
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.blockManager = "file";
    start(o);
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    fx.write(ts, inserts(tablet, 0, 100, RowOpType.INSERT));
    ts.snapshotTablet(tablet);
    // Layer blocks: meta, key index, bloom, version index, deleted flag, id, v.
    BlockId v = io.nyala.tserver.tablet.Superblock.read(ts.env(),
        dir.resolve("tablet-data").resolve(tablet)).allBlocks().get(6);
    Path file;
    try (Stream<Path> s = Files.walk(dir.resolve("blocks"))) {
      file = s.filter(p -> p.getFileName().toString().equalsIgnoreCase(v.toString())
          || p.getFileName().toString().equalsIgnoreCase(Long.toHexString(v.value())))
          .findFirst().orElseThrow();
    }
    byte[] b = Files.readAllBytes(file);
    b[12] ^= 1;
    Files.write(file, b);

    assertThatThrownBy(() -> fx.scanAll(ts, tablet, 1000))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("block " + v).hasMessageContaining("offset 0");
    assertThat(fx.write(ts, inserts(tablet, 500, 510, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(ts.isClosed()).isFalse();
  }

  @Test
  void deletingATabletDeletesItsBlocks() {
    start(TserverFixture.options(dir, TserverFixture.freePort()));
    int before = ts.blockManager().blockIds().size();
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    fx.write(ts, inserts(tablet, 0, 100, RowOpType.INSERT));
    ts.snapshotTablet(tablet);
    assertThat(ts.blockManager().blockIds().size()).isGreaterThan(before);
    ts.tabletManager().deleteTablet(tablet, "test");
    assertThat(ts.blockManager().blockIds()).hasSize(before);
    assertThat(dir.resolve("tablet-data").resolve(tablet)).doesNotExist();
  }
}
