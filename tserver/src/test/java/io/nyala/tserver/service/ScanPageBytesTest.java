package io.nyala.tserver.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowBlock;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scan pages are bounded in bytes, not only in rows: rows of 100 KiB scanned with the default
 * limits (1000 rows, 1 MiB) come in pages of at most 1 MiB plus one row.
 */
@Timeout(60)
class ScanPageBytesTest {
  private static final int ROWS = 24;
  private static final int VALUE_BYTES = 100 << 10;
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  @Test
  void pagesOfBigRowsStayWithinTheDefaultByteLimit() {
    ts = TserverFixture.start(TserverFixture.options(dir.resolve("ts"), TserverFixture.freePort()));
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    // Two rows per Write: under the default --max_write_request_bytes (240 KiB).
    for (int from = 0; from < ROWS; from += 2) {
      assertThat(fx.write(ts, bigRows(tablet, from, from + 2)).hasError()).isFalse();
    }

    ScanResponsePB r = fx.data(ts).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tablet)).build());
    Set<Object> keys = new HashSet<>();
    int pages = 0;
    int seq = 1;
    while (true) {
      if (NyalaException.isError(r.getError())) {
        throw NyalaException.fromPb(r.getError());
      }
      pages++;
      int bytes = r.getData().getRows().size();
      assertThat(bytes).as("page %d bytes", pages)
          .isLessThanOrEqualTo((1 << 20) + VALUE_BYTES + 64);
      assertThat(r.getData().getNumRows()).as("page %d rows", pages).isPositive();
      for (Object[] row : RowBlock.decode(Schema.fromPb(r.getProjection()), r.getData())) {
        assertThat(keys.add(row[0])).as("key %s twice", row[0]).isTrue();
      }
      if (!r.getHasMoreResults()) {
        break;
      }
      r = fx.data(ts).scan(ScanRequestPB.newBuilder().setScannerId(r.getScannerId())
          .setCallSeqId(seq++).build());
    }
    assertThat(keys).hasSize(ROWS);
    assertThat(pages).isGreaterThanOrEqualTo(3);
  }

  private static WriteRequestPB bigRows(String tablet, int from, int to) {
    List<RowOperations.Op> ops = new ArrayList<>();
    for (int i = from; i < to; i++) {
      ops.add(new RowOperations.Op(RowOpType.INSERT, TserverFixture.SCHEMA.newPartialRow()
          .addInt("id", i).addString("v", "x".repeat(VALUE_BYTES))));
    }
    return WriteRequestPB.newBuilder().setTabletId(tablet)
        .setSchema(TserverFixture.SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(TserverFixture.SCHEMA, ops)).build();
  }
}
