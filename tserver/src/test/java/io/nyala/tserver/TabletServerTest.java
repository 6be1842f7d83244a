package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.consensus.AppliedWrites;
import io.nyala.tserver.replica.TabletManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.ClientInvocationId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One tablet server, no master: the tablet is created through the admin RPC directly. */
@Timeout(60)
class TabletServerTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TserverOptions opts;
  private TabletServer ts;
  private final String tablet = RaftIds.newId();

  @BeforeEach
  void setUp() {
    opts = TserverFixture.options(dir, TserverFixture.freePort());
    ts = TserverFixture.start(opts);
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
  }

  @AfterEach
  void tearDown() {
    ts.close();
    fx.close();
  }

  private void restart() {
    ts.close();
    ts = TserverFixture.start(opts);
    TserverFixture.awaitLeader(tablet, List.of(ts));
  }

  @Test
  void writesAndPagedScanSeeEveryKeyOnce() {
    WriteResponsePB w = fx.write(ts, inserts(tablet, 0, 1000, RowOpType.INSERT));
    assertThat(w.hasError()).isFalse();
    assertThat(w.getPerRowErrorsList()).isEmpty();
    assertThat(w.getWriteIndex()).isPositive();
    List<Object[]> rows = fx.scanAll(ts, tablet, 100);
    assertThat(rows).extracting(r -> (Integer) r[0])
        .containsExactlyElementsOf(IntStream.range(0, 1000).boxed().toList());
    assertThat(rows.get(7)[1]).isEqualTo("value-7");
    assertThat(ts.metrics().value("rows_written_total")).isEqualTo(1000);
    assertThat(ts.metrics().value("tablets")).isEqualTo(1);
    assertThat(ts.metrics().value("tablets_leader")).isEqualTo(1);
    assertThat(ts.metrics().value("scanners_active")).isZero();
    assertThat(fx.data(ts).listTablets(ListTabletsRequestPB.getDefaultInstance())
        .getTablets(0).getEstimatedRows()).isEqualTo(1000);
  }

  @Test
  void errorsNameTheTabletColumnAndKey() {
    String missing = RaftIds.newId();
    WriteResponsePB nf = fx.write(ts, inserts(missing, 0, 1, RowOpType.INSERT));
    assertThat(nf.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(nf.getError().getMessage()).isEqualTo("tablet " + missing + " not found");

    Schema wrong = new Schema(List.of(ColumnSchema.builder("id", Type.INT32).key(true).build(),
        ColumnSchema.builder("v", Type.INT64).build()));
    WriteRequestPB bad = WriteRequestPB.newBuilder().setTabletId(tablet).setSchema(wrong.toPb())
        .setRowOperations(RowOperations.encode(wrong, List.of(new RowOperations.Op(
            RowOpType.INSERT, wrong.newPartialRow().addInt("id", 1).addLong("v", 2)))))
        .build();
    WriteResponsePB typed = fx.write(ts, bad);
    assertThat(typed.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(typed.getError().getMessage()).contains("'v'").contains("STRING").contains("INT64");

    WriteResponsePB garbage = fx.write(ts, inserts(tablet, 0, 1, RowOpType.INSERT).toBuilder()
        .setRowOperations(io.nyala.common.proto.RowOperationsPB.newBuilder()
            .setRows(ByteString.copyFrom(new byte[] {9, 9, 9})).setCount(1)).build());
    // A client's malformed rows are its bad argument, not damage to stored data.
    assertThat(garbage.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);

    fx.write(ts, inserts(tablet, 0, 3, RowOpType.INSERT));
    WriteResponsePB dup = fx.write(ts, inserts(tablet, 2, 4, RowOpType.INSERT));
    assertThat(dup.getPerRowErrorsList()).singleElement().satisfies(e -> {
      assertThat(e.getRowIndex()).isZero();
      assertThat(e.getError().getCode()).isEqualTo(StatusCodePB.ALREADY_PRESENT);
      assertThat(e.getError().getMessage()).isEqualTo("key (id=2) already present");
    });

    ScanResponsePB unknownCol = fx.data(ts).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tablet)
            .addProjectedColumns("nope")).build());
    assertThat(unknownCol.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(unknownCol.getError().getMessage()).contains("'nope'");
  }

  @Test
  void oversizeWritesAreRejected() {
    ts.close();
    opts.maxWriteRequestBytes = 1000;
    ts = TserverFixture.start(opts);
    TserverFixture.awaitLeader(tablet, List.of(ts));
    WriteResponsePB big = fx.write(ts, inserts(tablet, 0, 200, RowOpType.INSERT));
    assertThat(big.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(big.getError().getMessage()).contains("exceeds the limit of 1000 bytes");
  }

  @Test
  void scannerSequenceLimitAndExpiry() {
    fx.write(ts, inserts(tablet, 0, 50, RowOpType.INSERT));
    ScanResponsePB first = fx.data(ts).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tablet).setLimit(25))
        .setBatchSizeRows(10).build());
    assertThat(first.getHasMoreResults()).isTrue();
    assertThat(first.getData().getNumRows()).isEqualTo(10);
    ScanResponsePB wrongSeq = fx.data(ts).scan(ScanRequestPB.newBuilder()
        .setScannerId(first.getScannerId()).setCallSeqId(5).build());
    assertThat(wrongSeq.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    int total = 10;
    int seq = 1;
    ScanResponsePB r = first;
    while (r.getHasMoreResults()) {
      r = fx.data(ts).scan(ScanRequestPB.newBuilder().setScannerId(first.getScannerId())
          .setCallSeqId(seq++).setBatchSizeRows(10).build());
      assertThat(r.getSnapIndex()).isEqualTo(first.getSnapIndex());
      total += r.getData().getNumRows();
    }
    assertThat(total).isEqualTo(25);
    ScanResponsePB gone = fx.data(ts).scan(ScanRequestPB.newBuilder()
        .setScannerId(first.getScannerId()).setCallSeqId(seq).build());
    assertThat(gone.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(gone.getError().getMessage()).contains("not found or expired");
  }

  @Test
  void restartRebuildsRowsFromLogAndFromSnapshot() {
    fx.write(ts, inserts(tablet, 0, 300, RowOpType.INSERT));
    fx.write(ts, inserts(tablet, 0, 10, RowOpType.DELETE));
    restart();
    assertThat(fx.scanAll(ts, tablet, 1000)).hasSize(290);

    long snap = ts.snapshotTablet(tablet);
    assertThat(snap).isPositive();
    fx.write(ts, inserts(tablet, 300, 400, RowOpType.INSERT));
    restart();
    List<Object[]> rows = fx.scanAll(ts, tablet, 1000);
    assertThat(rows).hasSize(390);
    assertThat(rows.get(0)[0]).isEqualTo(10);
  }

  @Test
  void sameClientIdAndSeqNoAppliesOnce() {
    ByteString client = TserverFixture.clientId();
    WriteRequestPB req = inserts(tablet, 0, 5, RowOpType.INSERT).toBuilder()
        .setClientId(client).setSeqNo(1).build();
    WriteResponsePB first = fx.write(ts, req);
    WriteResponsePB retry = fx.write(ts, req);
    assertThat(retry.getPerRowErrorsList()).isEmpty();
    assertThat(retry.getWriteIndex()).isEqualTo(first.getWriteIndex());
    WriteResponsePB again = fx.write(ts, req.toBuilder().setSeqNo(2).build());
    assertThat(again.getPerRowErrorsList()).hasSize(5)
        .allSatisfy(e ->
            assertThat(e.getError().getCode()).isEqualTo(StatusCodePB.ALREADY_PRESENT));
    assertThat(ts.metrics().value("ops_applied_total")).isEqualTo(5);
  }

  @Test
  void aRepliedSeqNoLeavesTheReplicasRetryTable() throws Exception {
    ByteString client = TserverFixture.clientId();
    fx.write(ts, inserts(tablet, 0, 1, RowOpType.INSERT).toBuilder()
        .setClientId(client).setSeqNo(1).build());
    AppliedWrites applied = ts.tabletManager().get(tablet).appliedWrites();
    ClientId id = RaftIds.clientId(client.toByteArray());
    assertThat(applied.find(ClientInvocationId.valueOf(id, 1))).isNotNull();
    fx.write(ts, inserts(tablet, 1, 2, RowOpType.INSERT).toBuilder()
        .setClientId(client).setSeqNo(2).addRepliedSeqNos(1).build());
    assertThat(applied.find(ClientInvocationId.valueOf(id, 1))).isNull();
    assertThat(applied.find(ClientInvocationId.valueOf(id, 2))).isNotNull();
  }

  @Test
  void createIsIdempotentAndDeleteRemovesMetadataAndGroupDir() throws Exception {
    fx.createTablet(tablet, List.of(ts));
    Path meta = dir.resolve("tablet-meta").resolve(tablet);
    Path groupDir = dir.resolve("raft").resolve(RaftIds.groupId(tablet).getUuid().toString());
    assertThat(meta).exists();
    assertThat(groupDir).isDirectory();
    var resp = fx.admin(ts.rpcAddress()).deleteTablet(
        DeleteTabletRequestPB.newBuilder().setTabletId(tablet).setTabletDropped(true)
            .setReason("test").build());
    assertThat(resp.hasError()).isFalse();
    assertThat(meta).doesNotExist();
    assertThat(groupDir).doesNotExist();
    assertThat(ts.tabletManager().count()).isZero();
    assertThatThrownBy(() -> ts.tabletManager().get(tablet)).hasMessageContaining("not found");
    restart0();
    assertThat(ts.tabletManager().count()).isZero();
  }

  @Test
  void orphanGroupDirectoryDoesNotStopTheServer() throws Exception {
    String other = RaftIds.newId();
    fx.createTablet(other, List.of(ts));
    TserverFixture.awaitLeader(other, List.of(ts));
    ts.close();
    Files.delete(dir.resolve("tablet-meta").resolve(tablet));
    ts = TserverFixture.start(opts);
    assertThat(ts.tabletManager().count()).isEqualTo(1);
    assertThat(dir.resolve("raft").resolve(RaftIds.groupId(tablet).getUuid().toString()))
        .doesNotExist();
    assertThat(dir.resolve("raft").resolve(RaftIds.groupId(other).getUuid().toString()))
        .exists();
    assertThat(ts.metrics().value("tablets", Map.of())).isEqualTo(1);
  }

  @Test
  void anEmptyMetadataDirRemovesNoRaftGroupDirectory() throws Exception {
    ts.close();
    Files.delete(dir.resolve("tablet-meta").resolve(tablet));
    ts = TserverFixture.start(opts);
    assertThat(ts.tabletManager().count()).isZero();
    String group = RaftIds.groupId(tablet).getUuid().toString();
    assertThat(dir.resolve("raft").resolve(group)).doesNotExist();
    assertThat(dir.resolve(TabletManager.ORPHANED_RAFT_DIR).resolve(group))
        .as("with no metadata at all, a group dir is evidence of lost metadata, not garbage")
        .isDirectory();
  }

  private void restart0() {
    ts.close();
    ts = TserverFixture.start(opts);
  }

  @Test
  void faultWithholdsTheFirstAnswerToACommittedWriteOnly() {
    opts.faultDropWriteResponseAfterCommit = true;
    opts.unlockUnsafeFlags = true;
    restart();
    WriteRequestPB req = inserts(tablet, 0, 5, RowOpType.INSERT).toBuilder()
        .setClientId(TserverFixture.clientId()).setSeqNo(1).build();
    assertThatThrownBy(() -> fx.data(ts).withDeadlineAfter(2, TimeUnit.SECONDS).write(req))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("DEADLINE_EXCEEDED");
    assertThat(fx.scanAll(ts, tablet, 100)).as("the write was applied all the same").hasSize(5);
    assertThat(ts.metrics().value("fault_write_responses_dropped_total")).isEqualTo(1);

    WriteResponsePB retry = fx.write(ts, req);
    assertThat(retry.hasError()).isFalse();
    assertThat(retry.getPerRowErrorsList()).as("answered with the first outcome").isEmpty();
    WriteResponsePB anonymous = fx.data(ts).withDeadlineAfter(10, TimeUnit.SECONDS)
        .write(inserts(tablet, 0, 1, RowOpType.INSERT));
    assertThat(anonymous.getPerRowErrors(0).getError().getCode())
        .as("a write without client id is answered (and is a duplicate)")
        .isEqualTo(StatusCodePB.ALREADY_PRESENT);
    assertThat(fx.scanAll(ts, tablet, 100)).hasSize(5);
  }
}
