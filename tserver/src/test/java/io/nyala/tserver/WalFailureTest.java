package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.replica.ReplicaState;
import io.nyala.tserver.replica.TabletReplica;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real tablet server whose Raft log (the WAL, written by Ratis itself) really fails
 * (docs/data-safety.md, "Disk faults"): the replica goes FAILED with the cause, and writes to it
 * fail naming the tablet and the cause. The faults are made on disk, under Ratis' open segment,
 * and surface when a new term makes Ratis roll that segment (a step-down of the only peer):
 * a dangling link where the next segment goes fails the segment's open with an IOException
 * (Ratis calls {@code notifyLogFailed}); a deleted open segment fails the roll with an
 * unchecked error (Ratis' log worker logs "hit exception" and closes the division).
 */
@Timeout(60)
class WalFailureTest {
  @TempDir
  Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;
  private final String tablet = RaftIds.newId();
  private final RaftGroupId gid = RaftIds.groupId(tablet);

  @BeforeEach
  void start() {
    ts = TserverFixture.start(TserverFixture.options(dir, TserverFixture.freePort()));
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    WriteResponsePB w = fx.write(ts, inserts(tablet, 0, 50, RowOpType.INSERT));
    assertThat(w.hasError()).as("write error %s", w.getError()).isFalse();
  }

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  private RaftServer.Division division() throws Exception {
    return ts.raftServer().getDivision(gid);
  }

  private File logDir() throws Exception {
    return division().getRaftStorage().getStorageDir().getCurrentDir();
  }

  /** The only peer steps down: it is elected again in a new term, whose first entry rolls. */
  private void newTerm() {
    RaftCalls.transferLeadership(ts.raftServer(), gid, null, 5_000)
        .exceptionally(t -> null);
  }

  private NyalaException awaitFailed() {
    TabletReplica r = ts.tabletManager().get(tablet);
    await().atMost(Duration.ofSeconds(30)).until(() -> r.state() == ReplicaState.FAILED);
    return r.failure();
  }

  private void assertWritesNameTheCause(String cause) {
    WriteResponsePB w = fx.write(ts, inserts(tablet, 50, 51, RowOpType.INSERT));
    assertThat(w.hasError()).isTrue();
    assertThat(w.getError().getMessage()).contains("tablet " + tablet).contains("FAILED")
        .contains(cause);
  }

  @Test
  void aSegmentThatCannotBeOpenedFailsTheReplica() throws Exception {
    long next = division().getRaftLog().getLastEntryTermIndex().getIndex() + 1;
    // Ratis sees no file there, but opening it fails: NoSuchFileException, as an I/O error.
    Files.createSymbolicLink(logDir().toPath().resolve("log_inprogress_" + next),
        dir.resolve("gone").resolve("segment"));
    newTerm();
    NyalaException why = awaitFailed();
    assertThat(why.detail()).contains("tablet " + tablet)
        .contains("its Raft log (WAL) failed").contains("log_inprogress_" + next);
    assertWritesNameTheCause("Raft log (WAL) failed");
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      for (RaftGroupId g : ts.raftServer().getGroupIds()) {
        if (g.equals(gid)) {
          return false;
        }
      }
      return true;
    });
  }

  @Test
  void aDivisionRatisClosesOnALogErrorFailsTheReplica() throws Exception {
    try (var files = Files.list(logDir().toPath())) {
      for (Path p : files.filter(f -> f.getFileName().toString().startsWith("log_inprogress_"))
          .toList()) {
        Files.delete(p); // Ratis keeps writing its open channel; the roll finds no file
      }
    }
    newTerm();
    NyalaException why = awaitFailed();
    assertThat(why.detail()).contains("tablet " + tablet)
        .contains("Raft group closed without this server asking");
    assertWritesNameTheCause("Raft group closed without this server asking");
  }

  @Test
  void aServerStopFailsNoReplica() {
    TabletReplica r = ts.tabletManager().get(tablet);
    ts.close();
    assertThat(r.failure()).isNull();
    assertThat(r.state()).isEqualTo(ReplicaState.RUNNING);
  }
}
