package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.TabletScanSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * History is kept on every replica for {@code --tablet_history_max_age_sec}, not only what the
 * leader's open scanners pin: after updates, deletes, flushes and compactions on three real
 * replicas, each still reads the rows as of an older snapshot (docs/data-safety.md, "Scans");
 * a snapshot older than the window is refused with an error that says so.
 */
@Timeout(90)
class ReplicaHistoryTest {
  private static final int ROWS = 50;
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  @Test
  void everyReplicaKeepsHistoryWithinTheWindowAfterFlushAndCompaction() {
    for (int i = 0; i < 3; i++) {
      servers.add(TserverFixture.start(
          TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort())));
    }
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, servers);
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    assertThat(fx.write(leader, inserts(tablet, 0, ROWS, RowOpType.INSERT)).hasError()).isFalse();
    long snapshot = store(leader, tablet).lastAppliedIndex();

    // Each row rewritten twice, a fifth deleted, with a flush after each round on every replica.
    for (int round = 0; round < 2; round++) {
      assertThat(fx.write(leader, rewrite(tablet, "round-" + round)).hasError()).isFalse();
      flushEverywhere(tablet, store(leader, tablet).lastAppliedIndex());
    }
    assertThat(fx.write(leader, inserts(tablet, 0, ROWS / 5, RowOpType.DELETE)).hasError())
        .isFalse();
    long last = store(leader, tablet).lastAppliedIndex();
    flushEverywhere(tablet, last);
    for (TabletServer ts : servers) {
      BlockTabletStore s = store(ts, tablet);
      s.compact();
      s.collectGarbage();
    }

    for (TabletServer ts : servers) {
      BlockTabletStore s = store(ts, tablet);
      s.pin(snapshot);
      try {
        TabletScanSpec spec =
            TabletScanSpec.of(s.schema(), List.of(), List.of(), null, null, snapshot);
        List<Object[]> rows = s.scan(spec, null, 10_000).rows();
        assertThat(rows).as("rows at snapshot %d on %s", snapshot, ts.uuid()).hasSize(ROWS);
        for (Object[] r : rows) {
          assertThat(r[1]).as("row %s at snapshot %d on %s", r[0], snapshot, ts.uuid())
              .isEqualTo("value-" + r[0]);
        }
        TabletScanSpec now = spec.atSnapshot(last);
        assertThat(s.scan(now, null, 10_000).rows()).hasSize(ROWS - ROWS / 5);
      } finally {
        s.unpin(snapshot);
      }
    }
  }

  @Test
  void snapshotOlderThanTheWindowGetsAClearErrorOverRpc() {
    TserverOptions o = TserverFixture.options(dir.resolve("ts"), TserverFixture.freePort());
    o.tabletHistoryMaxAgeSec = 1;
    servers.add(TserverFixture.start(o));
    TabletServer ts = servers.get(0);
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, servers);
    TserverFixture.awaitLeader(tablet, servers);
    assertThat(fx.write(ts, inserts(tablet, 0, ROWS, RowOpType.INSERT)).hasError()).isFalse();
    long snapshot = store(ts, tablet).lastAppliedIndex();
    ScanRequestPB atSnapshot = ScanRequestPB.newBuilder().setNewScanRequest(
        NewScanRequestPB.newBuilder().setTabletId(tablet)
            .setReadMode(ReadModePB.READ_AT_SNAPSHOT).setSnapIndex(snapshot)).build();
    assertThat(fx.data(ts).scan(atSnapshot).getData().getNumRows()).isEqualTo(ROWS);

    int[] round = {0};
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      // Writes keep the applied index moving, so the mark passes the snapshot.
      fx.write(ts, rewrite(tablet, "round-" + round[0]++));
      ScanResponsePB r = fx.data(ts).scan(atSnapshot);
      assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
      assertThat(r.getError().getMessage()).contains(tablet)
          .contains("snapshot scan index " + snapshot)
          .contains("earlier than the ancient history mark")
          .contains("--tablet_history_max_age_sec=1");
    });
  }

  private static WriteRequestPB rewrite(String tablet, String value) {
    List<RowOperations.Op> ops = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      ops.add(new RowOperations.Op(RowOpType.UPDATE, TserverFixture.SCHEMA.newPartialRow()
          .addInt("id", i).addString("v", value)));
    }
    return WriteRequestPB.newBuilder().setTabletId(tablet)
        .setSchema(TserverFixture.SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(TserverFixture.SCHEMA, ops)).build();
  }

  /** Waits until every replica applied {@code index}, then flushes each. */
  private void flushEverywhere(String tablet, long index) {
    for (TabletServer ts : servers) {
      await().atMost(Duration.ofSeconds(20))
          .until(() -> store(ts, tablet).lastAppliedIndex() >= index);
      store(ts, tablet).flush();
    }
  }

  private static BlockTabletStore store(TabletServer ts, String tablet) {
    return ts.tabletManager().get(tablet).blockStore();
  }
}
