package io.nyala.tserver.service;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import io.nyala.tserver.TserverOptions;
import io.nyala.tserver.consensus.RaftLogWorkers;
import io.nyala.tserver.replica.DeleteTimings;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.tablet.Superblock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** DeleteTablet leaves nothing of the tablet on disk, also when a crash interrupted it. */
@Timeout(60)
class DeleteTabletTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TserverOptions opts;
  private TabletServer ts;

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  private String tabletWithRowsAndSnapshot() throws IOException {
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(fx.write(ts, inserts(tablet, 0, 50, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(ts.snapshotTablet(tablet)).isPositive();
    assertThat(fx.write(ts, inserts(tablet, 50, 60, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(TserverFixture.filesOf(dir, tablet)).isNotEmpty();
    return tablet;
  }

  @Test
  void deleteRemovesWalBlocksAndMetadataButKeepsOtherTablets() throws Exception {
    opts = TserverFixture.options(dir, TserverFixture.freePort());
    ts = TserverFixture.start(opts);
    String kept = tabletWithRowsAndSnapshot();
    int blocksBefore = ts.blockManager().blockIds().size();
    String doomed = tabletWithRowsAndSnapshot();
    assertThat(ts.blockManager().blockIds().size()).isGreaterThan(blocksBefore);

    var resp = fx.admin(ts.rpcAddress()).deleteTablet(
        DeleteTabletRequestPB.newBuilder().setTabletId(doomed).setTabletDropped(true)
            .setReason("test").build());
    assertThat(resp.hasError()).as(resp.getError().getMessage()).isFalse();
    assertThat(TserverFixture.filesOf(dir, doomed)).isEmpty();
    assertThat(ts.blockManager().blockIds()).hasSize(blocksBefore);
    assertThat(fx.scanAll(ts, kept, 100)).hasSize(60);

    var again = fx.admin(ts.rpcAddress()).deleteTablet(
        DeleteTabletRequestPB.newBuilder().setTabletId(doomed).build());
    assertThat(again.getError().getMessage()).contains(doomed).contains("not found");
  }

  /** Starts the server with one tablet; returns its Raft member id here. */
  private RaftGroupMemberId startWithOneTablet() throws IOException {
    opts = TserverFixture.options(dir, TserverFixture.freePort());
    ts = TserverFixture.start(opts);
    String tablet = tabletWithRowsAndSnapshot();
    return ts.raftServer().getDivision(RaftIds.groupId(tablet)).getMemberId();
  }

  @Test
  void deleteRemovesTheGroupAndEndsItsLogWorker() throws Exception {
    RaftGroupMemberId member = startWithOneTablet();
    String doomed = RaftIds.tabletId(member.getGroupId());
    Thread worker = RaftLogWorkers.find(member);
    assertThat(worker).as("Ratis names its log worker thread after the member id").isNotNull();

    DeleteTimings t = ts.tabletManager().deleteTablet(doomed, "test");
    assertThat(t.totalNanos()).isPositive();
    assertThat(ts.raftServer().getGroupIds()).doesNotContain(RaftIds.groupId(doomed));
    worker.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(worker.isAlive()).isFalse();
    assertThat(TserverFixture.filesOf(dir, doomed)).isEmpty();
  }

  @Test
  void aClosedReplicaThatIsNotBeingDeletedKeepsItsLogWorker() throws Exception {
    RaftGroupMemberId member = startWithOneTablet();
    String tablet = RaftIds.tabletId(member.getGroupId());
    // What a plain stop reports: the log worker must stay, to write out the log.
    ts.tabletManager().replicaClosed(tablet, member);
    assertThat(fx.write(ts, inserts(tablet, 60, 70, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(fx.scanAll(ts, tablet, 100)).hasSize(70);
  }

  @Test
  void restartFinishesADeleteACrashInterrupted() throws Exception {
    opts = TserverFixture.options(dir, TserverFixture.freePort());
    ts = TserverFixture.start(opts);
    String doomed = tabletWithRowsAndSnapshot();
    String kept = tabletWithRowsAndSnapshot();
    ts.close();
    // The state a crash right after the first step of a delete leaves: metadata marked
    // DELETING, Raft group, log, superblock and blocks still there.
    Path meta = dir.resolve("tablet-meta").resolve(doomed);
    TabletMetadataPB m = TabletMetadataPB.parseFrom(
        Env.plain().readFile(meta, OpenOptions.SENSITIVE));
    Env.plain().replaceFile(meta, m.toBuilder()
        .setDataState(TabletDataStatePB.TABLET_DATA_DELETING).build().toByteArray(),
        OpenOptions.SENSITIVE);

    ts = TserverFixture.start(opts);
    assertThat(TserverFixture.filesOf(dir, doomed)).isEmpty();
    // Only the kept tablet's blocks remain: the doomed one's went with its superblock.
    assertThat(ts.blockManager().blockIds()).containsExactlyInAnyOrderElementsOf(Superblock.read(
        ts.env(), dir.resolve("tablet-data").resolve(kept)).allBlocks());
    assertThat(ts.tabletManager().replicas()).extracting(TabletReplica::tabletId)
        .containsExactly(kept);
    TserverFixture.awaitLeader(kept, List.of(ts));
    assertThat(fx.scanAll(ts, kept, 100)).hasSize(60);
  }
}
