package io.nyala.common.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.TermIndexProto;
import org.junit.jupiter.api.Test;

/** Which append-entries requests the guard changes, and that it changes only the commit. */
class HeartbeatCommitGuardTest {
  private static final TermIndexProto PREVIOUS =
      TermIndexProto.newBuilder().setTerm(2).setIndex(4).build();
  private static final LogEntryProto ENTRY =
      LogEntryProto.newBuilder().setTerm(2).setIndex(0).build();

  @Test
  void aHeartbeatWithoutPreviousEntryCommitsNothing() {
    AppendEntriesRequestProto r = AppendEntriesRequestProto.newBuilder().setLeaderTerm(3)
        .setLeaderCommit(7).build();
    AppendEntriesRequestProto guarded = HeartbeatCommitGuard.guard(r);
    assertThat(guarded.getLeaderCommit()).isEqualTo(-1);
    assertThat(guarded.toBuilder().setLeaderCommit(7).build()).isEqualTo(r);
  }

  @Test
  void requestsThatNameWhatTheyCommitPassUnchanged() {
    AppendEntriesRequestProto heartbeat = AppendEntriesRequestProto.newBuilder()
        .setLeaderTerm(3).setPreviousLog(PREVIOUS).setLeaderCommit(4).build();
    AppendEntriesRequestProto fromStart = AppendEntriesRequestProto.newBuilder()
        .setLeaderTerm(3).addEntries(ENTRY).setLeaderCommit(0).build();
    AppendEntriesRequestProto nothingCommitted = AppendEntriesRequestProto.newBuilder()
        .setLeaderTerm(3).setLeaderCommit(-1).build();
    for (AppendEntriesRequestProto r : new AppendEntriesRequestProto[] {
        heartbeat, fromStart, nothingCommitted}) {
      assertThat(HeartbeatCommitGuard.guard(r)).isSameAs(r);
    }
    Object other = "not an append";
    assertThat(HeartbeatCommitGuard.guard(other)).isSameAs(other);
  }
}
