package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.PartialRow;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store keeps {@code --tablet_history_max_age_sec} of history through flushes, compactions
 * and restarts, measured on an injected monotonic clock: a snapshot younger than the window reads
 * its old versions with nothing pinned; one older gets a clear error, and GC then drops what
 * only it needed.
 */
@Timeout(30)
class HistoryRetentionTest {
  private static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(900);
  private static final int ROWS = 20;
  @TempDir Path dir;
  /** Starts near the overflow of a long: comparisons must be by difference. */
  private final AtomicLong clock = new AtomicLong(Long.MAX_VALUE - TimeUnit.SECONDS.toNanos(600));
  private StoreFixture fx;

  @BeforeEach
  void setUp() {
    fx = StoreFixture.plain(dir, BlockTabletStoreTest.SCHEMA);
    fx.keepHistory(new HistoryRetention(MAX_AGE_NANOS, clock::get));
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  @Test
  void snapshotWithinTheWindowReadsOldVersionsAfterFlushCompactionAndRestart() {
    long snapshot = writeThenChurn();
    // The snapshot stopped being the newest at the first update, 60 s after the insert; the
    // churn took 180 s: 700 s more leaves it 820 s old, inside the 900 s window.
    clock.addAndGet(TimeUnit.SECONDS.toNanos(700));
    fx.apply(BlockTabletStoreTest.SCHEMA, List.of(upsert(1000, "late")));
    fx.store.compact();
    fx.store.collectGarbage();
    assertThat(rowsAt(snapshot)).containsExactlyElementsOf(original());

    fx.restart();
    fx.store.compact();
    assertThat(rowsAt(snapshot)).containsExactlyElementsOf(original());
  }

  @Test
  void snapshotOlderThanTheWindowGetsAClearErrorAndItsVersionsGo() {
    long snapshot = writeThenChurn();
    int before = fx.store.versionCount();
    clock.addAndGet(MAX_AGE_NANOS + TimeUnit.SECONDS.toNanos(30));
    fx.apply(BlockTabletStoreTest.SCHEMA, List.of(upsert(1000, "late")));
    clock.addAndGet(MAX_AGE_NANOS + TimeUnit.SECONDS.toNanos(30));
    fx.store.flush();
    fx.store.compact();
    fx.store.collectGarbage();

    assertThatThrownBy(() -> fx.store.pin(snapshot))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("snapshot scan index " + snapshot)
        .hasMessageContaining("earlier than the ancient history mark")
        .hasMessageContaining("--tablet_history_max_age_sec=900");
    assertThat(fx.store.versionCount()).as("versions kept once the window passed")
        .isLessThan(before).isLessThanOrEqualTo(ROWS + 1);
  }

  /** Inserts the rows, then updates, deletes, flushes and compacts; returns the insert's index. */
  private long writeThenChurn() {
    List<Op> inserts = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      inserts.add(upsert(i, "v" + i));
    }
    fx.apply(BlockTabletStoreTest.SCHEMA, inserts);
    long snapshot = fx.index;
    for (int round = 0; round < 3; round++) {
      clock.addAndGet(TimeUnit.SECONDS.toNanos(60));
      List<Op> updates = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        updates.add(upsert(i, "r" + round));
      }
      fx.apply(BlockTabletStoreTest.SCHEMA, updates);
      fx.store.flush();
    }
    List<Op> deletes = new ArrayList<>();
    for (int i = 0; i < ROWS / 4; i++) {
      deletes.add(new Op(RowOpType.DELETE, BlockTabletStoreTest.SCHEMA.newPartialRow()
          .addInt("id", i)));
    }
    fx.apply(BlockTabletStoreTest.SCHEMA, deletes);
    fx.store.flush();
    fx.store.compact();
    fx.store.collectGarbage();
    return snapshot;
  }

  private List<String> rowsAt(long snapshot) {
    fx.store.pin(snapshot);
    try {
      TabletScanSpec spec = TabletScanSpec.of(fx.store.schema(), List.of("id", "v"), List.of(),
          null, null,
          snapshot);
      return fx.store.scan(spec, null, 1000).rows().stream().map(r -> r[0] + "=" + r[1])
          .toList();
    } finally {
      fx.store.unpin(snapshot);
    }
  }

  private static List<String> original() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      out.add(i + "=v" + i);
    }
    return out;
  }

  private static Op upsert(int id, String v) {
    PartialRow r = BlockTabletStoreTest.SCHEMA.newPartialRow().addInt("id", id).addString("v", v);
    return new Op(RowOpType.UPSERT, r);
  }
}
