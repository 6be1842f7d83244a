package io.nyala.tserver.consensus;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.security.LogPayloads;
import io.nyala.tserver.tablet.TabletStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * A leader's group for {@link WriteBatcher} without Raft: entries wait until the test applies
 * them, oldest first, through the real {@link EntryApplier} (so results are recorded in the
 * replica's real {@link AppliedWrites}) at the next index of a term the test picks, or fails
 * them. The term and readiness are the test's. One thread.
 */
final class FakeWriteGroup implements WriteBatcher.Group {
  /** An entry submitted: its payload and the reply it waits for. */
  record Entry(ClientId client, long callId, ByteString payload, List<Long> answered,
      CompletableFuture<ByteString> reply) {
    /** The entry's operation, parsed. */
    TabletOpPB op() throws Exception {
      return TabletOpPB.parseFrom(payload.toByteArray());
    }
  }

  final List<Entry> submitted = new ArrayList<>();
  long term = 1;
  boolean ready = true;
  private final TabletStore store;
  private final EntryApplier applier;
  private int nextToApply;
  private long nextIndex = 1;

  FakeWriteGroup(TabletStore store, AppliedWrites applied) {
    this.store = store;
    this.applier = new EntryApplier("t1", LogPayloads.plain("t1"),
        new TabletStateMachine.Listener() {
          @Override
          public void leaderChanged(String tabletId) {}

          @Override
          public void rowsApplied(String tabletId, int rows) {}
        }, applied);
  }

  @Override
  public long readyTerm() {
    if (!ready) {
      throw NyalaException.unavailable("tablet t1: leader not ready in term %d", term);
    }
    return term;
  }

  @Override
  public CompletableFuture<ByteString> submit(ClientId client, long callId, ByteString payload,
      List<Long> answered) {
    Entry e = new Entry(client, callId, payload, answered, new CompletableFuture<>());
    submitted.add(e);
    return e.reply();
  }

  /** Applies the oldest entry not yet applied as an entry of the current term. */
  Entry applyNext() {
    return applyNext(term);
  }

  /** Applies the oldest entry not yet applied as an entry of {@code entryTerm}. */
  Entry applyNext(long entryTerm) {
    Entry e = submitted.get(nextToApply++);
    LogEntryProto entry = LogEntryProto.newBuilder().setTerm(entryTerm).setIndex(nextIndex++)
        .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
            .setClientId(e.client().toByteString()).setCallId(e.callId())
            .setLogData(e.payload()))
        .build();
    e.reply().complete(UnsafeByteOperations.unsafeWrap(applier.apply(store, entry)));
    return e;
  }

  /** Fails the oldest entry not yet applied with {@code why}, as Ratis when it steps down. */
  Entry failNext(Throwable why) {
    Entry e = submitted.get(nextToApply++);
    e.reply().completeExceptionally(why);
    return e;
  }
}
