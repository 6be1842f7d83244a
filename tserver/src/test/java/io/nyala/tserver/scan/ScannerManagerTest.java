package io.nyala.tserver.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.env.Env;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.file.FileBlockManager;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.TabletScanSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scanner's TTL runs on the injected monotonic clock only (docs/data-safety.md, "Time"): it
 * expires one nanosecond after the TTL, not at it, each call restarts it, and the clock may
 * cross the overflow of a long. No wall clock is read, so a wall step changes nothing.
 */
@Timeout(30)
class ScannerManagerTest {
  private static final long TTL_MS = 2000;
  private static final long TTL_NANOS = TimeUnit.MILLISECONDS.toNanos(TTL_MS);
  private static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("id", Type.INT32).key(true).build()));

  @TempDir Path dir;
  private final AtomicLong clock = new AtomicLong(Long.MAX_VALUE - TTL_NANOS / 2);
  private BlockManager blocks;
  private BlockTabletStore store;
  private ScannerManager scanners;

  @BeforeEach
  void setUp() {
    blocks = FileBlockManager.open(Env.plain(), List.of(dir.resolve("blocks")));
    store = BlockTabletStore.open("t1", SCHEMA, Env.plain(), blocks, dir.resolve("superblock"));
    scanners = new ScannerManager(TTL_MS, clock::get);
  }

  @AfterEach
  void tearDown() {
    scanners.close();
    store.close();
    blocks.close();
  }

  @Test
  void ttlIsMeasuredOnTheMonotonicClockOnly() {
    long snap = store.pinLatest(0);
    Scanner s = scanners.register("t1",
        store, TabletScanSpec.of(SCHEMA, List.of(), List.of(), null, null, snap), 0);

    clock.addAndGet(TTL_NANOS);
    assertThat(scanners.sweep()).as("expired at exactly the TTL").isZero();
    scanners.get(s.id());
    clock.addAndGet(TTL_NANOS);
    assertThat(scanners.sweep()).as("expired a TTL after its last use").isZero();

    clock.addAndGet(1);
    assertThat(scanners.sweep()).isEqualTo(1);
    assertThat(scanners.activeCount()).isZero();
    assertThat(store.pinCount()).as("the expired scanner's snapshot is released").isZero();
    assertThatThrownBy(() -> scanners.get(s.id())).hasMessageContaining("not found or expired");
  }
}
