package io.nyala.tserver.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * READ_YOUR_WRITES scans (docs/architecture.md, "Consistent reads"): the scan reads at or after
 * the write index the client names; an index that cannot be a write the client saw is refused
 * at once, naming the tablet and the index.
 */
@Timeout(120)
class ReadYourWritesScanTest {
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
  void readsAtOrAfterTheWriteIndexAndRefusesImpossibleOnes() {
    ts = TserverFixture.start(TserverFixture.options(dir.resolve("ts"), TserverFixture.freePort()));
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    WriteResponsePB w = fx.write(ts, WriteRequestPB.newBuilder().setTabletId(tablet)
        .setSchema(TserverFixture.SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(TserverFixture.SCHEMA, List.of(
            new RowOperations.Op(RowOpType.INSERT, TserverFixture.SCHEMA.newPartialRow()
                .addInt("id", 1).addString("v", "a"))))).build());
    assertThat(w.hasError()).isFalse();
    long written = w.getWriteIndex();
    assertThat(written).isPositive();

    ScanResponsePB r = scan(tablet, written);
    assertThat(NyalaException.isError(r.getError())).as("%s", r.getError()).isFalse();
    assertThat(r.getSnapIndex()).isGreaterThanOrEqualTo(written);
    assertThat(r.getData().getNumRows()).isEqualTo(1);

    ScanResponsePB beyond = scan(tablet, written + 1_000);
    assertThat(NyalaException.fromPb(beyond.getError()).code())
        .isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(beyond.getError().getMessage()).contains(tablet)
        .contains("snapshot index " + (written + 1_000));
    ScanResponsePB negative = scan(tablet, -1);
    assertThat(negative.getError().getMessage()).contains(tablet)
        .contains("must not be negative, got -1");
  }

  private ScanResponsePB scan(String tablet, long minApplied) {
    return fx.data(ts).scan(ScanRequestPB.newBuilder().setNewScanRequest(
        NewScanRequestPB.newBuilder().setTabletId(tablet)
            .setReadMode(ReadModePB.READ_YOUR_WRITES).setMinAppliedIndex(minApplied)).build());
  }
}
