package io.nyala.tserver.consensus;

import static io.nyala.tserver.consensus.FakeTabletStoreTest.SCHEMA;
import static io.nyala.tserver.consensus.FakeTabletStoreTest.op;
import static io.nyala.tserver.consensus.TabletStateMachineTest.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.ClientInvocationId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The batcher and its retry table against {@link FakeWriteGroup}: entries applied by the real
 * applier to a fake store, results recorded in a real {@link AppliedWrites}.
 */
@Timeout(30)
class WriteBatcherTest {
  private static final ByteString CLIENT = ByteString.copyFrom(new byte[] {
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});

  private final AppliedWrites applied = new AppliedWrites();
  private final FakeTabletStore store = new FakeTabletStore(SCHEMA);
  private final FakeWriteGroup group = new FakeWriteGroup(store, applied);
  private final MetricRegistry.Histogram perEntry = new MetricRegistry("test")
      .histogram("writes_per_entry", "Writes per entry", 1, 2, 4, 8);

  /** Submits at most {@code entries} entries at once, of at most {@code bytes} of requests. */
  private WriteBatcher batcher(int entries, long bytes) {
    return new WriteBatcher(applied, new WriteBatcher.Settings(bytes, 1000, entries,
        Runnable::run, perEntry));
  }

  private static WriteRequestPB req(long seq, RowOperations.Op... ops) {
    return req(seq, List.of(), ops);
  }

  private static WriteRequestPB req(long seq, List<Long> replied, RowOperations.Op... ops) {
    return WriteRequestPB.newBuilder().setTabletId("t1").setSchema(SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(SCHEMA, List.of(ops))).setClientId(CLIENT)
        .setSeqNo(seq).addAllRepliedSeqNos(replied).build();
  }

  private static ClientInvocationId call(long seq) {
    return ClientInvocationId.valueOf(
        io.nyala.common.consensus.RaftIds.clientId(CLIENT.toByteArray()), seq);
  }

  private static List<Integer> errorRows(CompletableFuture<WriteResultPB> f) {
    return f.join().getPerRowErrorsList().stream().map(PerRowResultPB::getRowIndex).toList();
  }

  @Test
  void aLoneWriteIsSubmittedAtOnceAndAnsweredWithItsResult() {
    WriteBatcher b = batcher(1, 1 << 20);
    CompletableFuture<WriteResultPB> w = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);

    assertThat(group.submitted).hasSize(1);
    assertThat(w).isNotDone();
    group.applyNext();
    assertThat(w.join().getWriteIndex()).isEqualTo(1);
    assertThat(w.join().getPerRowErrorsList()).isEmpty();
    assertThat(b.writesInFlight()).isZero();
  }

  @Test
  void writesQueuedWhileAnEntryIsOutGoTogetherAndEachGetsItsOwnRowErrors() throws Exception {
    WriteBatcher b = batcher(1, 1 << 20);
    var first = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    var clean = b.write(group, req(1, op(RowOpType.INSERT, 2)), SCHEMA);
    var duplicate = b.write(group, req(2, op(RowOpType.INSERT, 1)), SCHEMA);
    var mixed = b.write(group, req(3, op(RowOpType.INSERT, 3), op(RowOpType.UPDATE, 9)),
        SCHEMA);
    assertThat(group.submitted).hasSize(1);

    group.applyNext();
    assertThat(first.join().getPerRowErrorsList()).isEmpty();
    assertThat(group.submitted).hasSize(2);
    assertThat(group.submitted.get(1).op().getWriteBatch().getWritesCount()).isEqualTo(3);
    group.applyNext();

    assertThat(List.of(clean.join(), duplicate.join(), mixed.join()))
        .extracting(WriteResultPB::getWriteIndex).containsOnly(2L);
    assertThat(errorRows(clean)).isEmpty();
    assertThat(errorRows(duplicate)).containsExactly(0);
    assertThat(duplicate.join().getPerRowErrors(0).getError().getCode())
        .isEqualTo(StatusCodePB.ALREADY_PRESENT);
    assertThat(errorRows(mixed)).containsExactly(1);
    assertThat(mixed.join().getPerRowErrors(0).getError().getCode())
        .isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(store.rows().keySet()).containsExactly("1", "2", "3");
    assertThat(perEntry.count()).isEqualTo(2);
    assertThat(perEntry.sum()).isEqualTo(4);
  }

  @Test
  void aRetryWhileQueuedOrInFlightGetsTheOriginalsAnswerAndIsWrittenOnce() throws Exception {
    WriteBatcher b = batcher(1, 1 << 20);
    var inFlight = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    var queued = b.write(group, req(1, op(RowOpType.INSERT, 2)), SCHEMA);
    assertThat(b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA)).isSameAs(inFlight);
    assertThat(b.write(group, req(1, op(RowOpType.INSERT, 2)), SCHEMA)).isSameAs(queued);
    assertThat(b.writesInFlight()).isEqualTo(2);

    group.applyNext();
    group.applyNext();

    assertThat(group.submitted).hasSize(2);
    assertThat(group.submitted.get(1).op().getWriteBatch().getWritesCount()).isEqualTo(1);
    assertThat(errorRows(inFlight)).isEmpty();
    assertThat(errorRows(queued)).isEmpty();
    assertThat(b.writesInFlight()).isZero();
  }

  @Test
  void aRetryAfterApplyIsAnsweredFromTheAppliedWritesWithoutAnEntry() {
    WriteBatcher b = batcher(4, 1 << 20);
    var original = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    group.applyNext();

    var retry = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    // The replica's next leader term (after a wake, too): a fresh batcher, the same record.
    var afterWake = batcher(4, 1 << 20).write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);

    assertThat(retry.join()).isEqualTo(original.join());
    assertThat(afterWake.join()).isEqualTo(original.join());
    assertThat(errorRows(retry)).isEmpty(); // applied again, INSERT would fail ALREADY_PRESENT
    assertThat(group.submitted).hasSize(1);
  }

  @Test
  void aLeaderNotReadyAdmitsNothing() {
    WriteBatcher b = batcher(4, 1 << 20);
    group.ready = false;
    assertThatThrownBy(() -> b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE));
    assertThat(b.writesInFlight()).isZero();
    assertThat(group.submitted).isEmpty();
  }

  @Test
  void aWriteCheckedInOneTermIsSkippedInAnotherTermsEntryAndItsRetryIsWritten() {
    WriteBatcher b = batcher(4, 1 << 20);
    var w = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    group.applyNext(2); // appended after a leader change: its check no longer holds

    assertThat(failure(w).code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE);
    assertThat(store.rows()).isEmpty();
    assertThat(applied.find(call(0))).isNull();

    group.term = 2;
    var retry = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    group.applyNext();
    assertThat(errorRows(retry)).isEmpty();
    assertThat(store.rows().keySet()).containsExactly("1");
  }

  @Test
  void aFailedEntryFailsEachOfItsWritesAndTheirRetriesAreAdmittedAgain() {
    WriteBatcher b = batcher(1, 1 << 20);
    var first = b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    var second = b.write(group, req(1, op(RowOpType.INSERT, 2)), SCHEMA);
    group.failNext(NyalaException.notLeader("tablet t1: not the leader", "", null));
    group.failNext(NyalaException.notLeader("tablet t1: not the leader", "", null));

    assertThat(failure(first).code()).isEqualTo(StatusCode.NOT_LEADER);
    assertThat(failure(second).code()).isEqualTo(StatusCode.NOT_LEADER);
    assertThat(b.writesInFlight()).isZero();
    b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    assertThat(group.submitted).hasSize(3);
  }

  @Test
  void entriesStayWithinTheByteBoundAndAWriteSchemaOfTheirOwn() throws Exception {
    WriteRequestPB one = req(1, op(RowOpType.INSERT, 1));
    WriteBatcher b = batcher(1, 2L * one.getSerializedSize() + 1);
    b.write(group, one, SCHEMA);
    for (int i = 2; i <= 6; i++) {
      b.write(group, req(i, op(RowOpType.INSERT, i)), SCHEMA);
    }
    Schema equalButNotTheSame = Schema.fromPb(SCHEMA.toPb());
    b.write(group, req(7, op(RowOpType.INSERT, 7)), equalButNotTheSame);
    for (int i = 0; i < 5; i++) {
      group.applyNext();
    }

    List<Integer> sizes = new java.util.ArrayList<>();
    for (FakeWriteGroup.Entry e : group.submitted) {
      sizes.add(e.op().getWriteBatch().getWritesCount());
    }
    assertThat(sizes).containsExactly(1, 2, 2, 1, 1);
    assertThat(store.rows()).hasSize(7);
  }

  @Test
  void repliedSequenceNumbersAreForgottenOnApplyAndBatchIdsTellRatisWhatWasAnswered() {
    WriteBatcher b = batcher(4, 1 << 20);
    b.write(group, req(0, op(RowOpType.INSERT, 1)), SCHEMA);
    group.applyNext();
    assertThat(applied.find(call(0))).isNotNull();

    b.write(group, req(1, List.of(0L), op(RowOpType.INSERT, 2)), SCHEMA);
    group.applyNext();

    assertThat(applied.find(call(0))).isNull();
    assertThat(applied.find(call(1))).isNotNull();
    assertThat(group.submitted.get(1).answered())
        .containsExactly(group.submitted.get(0).callId());
  }
}
