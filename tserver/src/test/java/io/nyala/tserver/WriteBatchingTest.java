package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.ListenableFuture;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write RPCs on a real tablet server and Raft group (docs/architecture.md, "Write path"):
 * concurrent writes share entries and each gets its own answer; an entry written before
 * batching (one write under the client's ids) still applies, on replay too, and its result
 * answers a retry.
 */
@Timeout(120)
class WriteBatchingTest {
  private static final int WRITES = 200;

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final String tablet = RaftIds.newId();
  private TabletServer ts;

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  private TserverOptions start(TserverOptions o) {
    o.enableMaintenanceManager = false; // the log, not a flush, holds what a restart replays
    ts = TserverFixture.start(o);
    return o;
  }

  @Test
  void concurrentWritesShareEntriesAndEachGetsItsOwnRowErrors() throws Exception {
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.writeMaxEntriesInFlight = 1; // every write arriving while one entry is out queues
    start(o);
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(fx.write(ts, inserts(tablet, 100_000, 100_000 + WRITES, RowOpType.INSERT))
        .hasError()).isFalse();
    long entriesBefore = ts.metrics().value("writes_per_entry", Map.of());

    List<ListenableFuture<WriteResponsePB>> answers = new ArrayList<>();
    for (int i = 0; i < WRITES; i++) {
      // Row 1 of every third write inserts a key already there: that write alone fails it.
      RowOpType second = i % 3 == 0 ? RowOpType.INSERT : RowOpType.UPSERT;
      answers.add(fx.dataAsync(ts).write(write(i, second)));
    }

    for (int i = 0; i < WRITES; i++) {
      WriteResponsePB r = answers.get(i).get();
      assertThat(r.hasError()).as("write %d: %s", i, r.getError().getMessage()).isFalse();
      if (i % 3 == 0) {
        assertThat(r.getPerRowErrorsList()).as("write %d", i).hasSize(1);
        assertThat(r.getPerRowErrors(0).getRowIndex()).isEqualTo(1);
        assertThat(r.getPerRowErrors(0).getError().getCode())
            .isEqualTo(StatusCodePB.ALREADY_PRESENT);
      } else {
        assertThat(r.getPerRowErrorsList()).as("write %d", i).isEmpty();
      }
    }
    long entries = ts.metrics().value("writes_per_entry", Map.of()) - entriesBefore;
    assertThat(entries).isPositive().isLessThan(WRITES);
    assertThat(fx.scanAll(ts, tablet, 1000)).hasSize(2 * WRITES);
  }

  /** Write {@code i}: a new key, then one of the keys written first, as {@code second}. */
  private WriteRequestPB write(int i, RowOpType second) {
    List<RowOperations.Op> ops = List.of(
        new RowOperations.Op(RowOpType.INSERT, TserverFixture.SCHEMA.newPartialRow()
            .addInt("id", i).addString("v", "new-" + i)),
        new RowOperations.Op(second, TserverFixture.SCHEMA.newPartialRow()
            .addInt("id", 100_000 + i).addString("v", "again-" + i)));
    return WriteRequestPB.newBuilder().setTabletId(tablet)
        .setSchema(TserverFixture.SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(TserverFixture.SCHEMA, ops))
        .setClientId(TserverFixture.clientId()).setSeqNo(i + 1).build();
  }

  @Test
  void anEntryOfOneWriteUnderTheClientsIdsAppliesOnReplayAndAnswersItsRetry() {
    TserverOptions o = start(TserverFixture.options(dir, TserverFixture.freePort()));
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    WriteRequestPB req = inserts(tablet, 0, 5, RowOpType.INSERT).toBuilder()
        .setClientId(TserverFixture.clientId()).setSeqNo(7).build();
    byte[] oldEntry = TabletOpPB.newBuilder().setWrite(WriteOpPB.newBuilder()
        .setSchema(req.getSchema()).setRowOperations(req.getRowOperations())).build()
        .toByteArray();
    RaftCalls.write(ts.raftServer(), RaftIds.groupId(tablet),
        RaftIds.clientId(req.getClientId().toByteArray()), req.getSeqNo(),
        UnsafeByteOperations.unsafeWrap(oldEntry)).join();

    WriteResponsePB retry = fx.write(ts, req);
    assertThat(retry.hasError()).isFalse();
    assertThat(retry.getPerRowErrorsList()).isEmpty(); // applied again: 5 ALREADY_PRESENT
    assertThat(fx.scanAll(ts, tablet, 100)).hasSize(5);

    ts.close();
    start(o);
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(fx.scanAll(ts, tablet, 100)).hasSize(5);
    WriteResponsePB afterRestart = fx.write(ts, req);
    assertThat(afterRestart.getPerRowErrorsList()).isEmpty();
    assertThat(afterRestart.getWriteIndex()).isEqualTo(retry.getWriteIndex());
    assertThat(fx.write(ts, inserts(tablet, 5, 6, RowOpType.INSERT)).getPerRowErrorsList())
        .isEmpty();
    assertThat(fx.scanAll(ts, tablet, 100)).hasSize(6);
  }
}
