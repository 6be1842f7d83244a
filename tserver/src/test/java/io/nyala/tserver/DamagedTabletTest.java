package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.web.StatusPage;
import io.nyala.tserver.web.TabletsPage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One damaged tablet fails alone (docs/data-safety.md, "Damage is contained"): the server starts,
 * the damaged replica reports FAILED with an error naming tablet, file and cause, every other
 * tablet serves, and the FAILED replica can still be deleted.
 */
@Timeout(60)
class DamagedTabletTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TserverOptions opts;
  private TabletServer ts;
  private final String damaged = RaftIds.newId();
  private final String healthy = RaftIds.newId();

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  /** Two RF-1 tablets with 50 flushed rows each, on a server using {@code blockManager}. */
  private void twoFlushedTablets(String blockManager) {
    opts = TserverFixture.options(dir, TserverFixture.freePort());
    opts.blockManager = blockManager;
    ts = TserverFixture.start(opts);
    for (String t : List.of(damaged, healthy)) {
      fx.createTablet(t, List.of(ts));
      TserverFixture.awaitLeader(t, List.of(ts));
      assertThat(fx.write(ts, inserts(t, 0, 50, RowOpType.INSERT)).hasError()).isFalse();
      assertThat(ts.snapshotTablet(t)).isPositive();
    }
  }

  private void restart() {
    ts.close();
    ts = TserverFixture.start(opts);
  }

  private Path superblock(String tablet) {
    return dir.resolve("tablet-data").resolve(tablet);
  }

  private ReportedTabletPB report(String tablet) {
    return ts.tabletManager().get(tablet).report(ts.raftServer());
  }

  /** The damaged replica is FAILED and says why; the healthy one serves reads and writes. */
  private void assertOnlyDamagedFailed(String... errorMentions) {
    ReportedTabletPB r = report(damaged);
    assertThat(r.getState()).isEqualTo(TabletStatePB.FAILED);
    assertThat(r.getError().getMessage()).contains(damaged).contains(errorMentions);
    TserverFixture.awaitLeader(healthy, List.of(ts));
    assertThat(fx.write(ts, inserts(healthy, 50, 60, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(fx.scanAll(ts, healthy, 100)).hasSize(60);
    assertThat(report(healthy).getState()).isEqualTo(TabletStatePB.RUNNING);
    assertThatThrownBy(() -> fx.scanAll(ts, damaged, 100)).hasMessageContaining("FAILED");
    ListTabletsResponsePB list = fx.data(ts).listTablets(ListTabletsRequestPB.getDefaultInstance());
    assertThat(list.getTabletsList()).anySatisfy(s -> {
      assertThat(s.getTabletId()).isEqualTo(damaged);
      assertThat(s.getState()).isEqualTo("FAILED");
      assertThat(s.getError()).contains(damaged);
    });
    assertThat(TabletsPage.render(ts)).contains("FAILED").contains(damaged);
    assertThat(StatusPage.render(ts, false)).contains("1 failed").doesNotContain(damaged)
        .doesNotContain(healthy);
  }

  /** Deleting a FAILED replica (the master's last step of re-replication) leaves nothing. */
  private void deleteDamagedLeavesNothing() throws IOException {
    var resp = fx.admin(ts.rpcAddress()).deleteTablet(
        DeleteTabletRequestPB.newBuilder().setTabletId(damaged).setReason("test").build());
    assertThat(resp.hasError()).as(resp.getError().getMessage()).isFalse();
    assertThat(superblock(damaged)).doesNotExist();
    assertThat(dir.resolve("tablet-meta").resolve(damaged)).doesNotExist();
    assertThat(dir.resolve("raft").resolve(RaftIds.groupId(damaged).getUuid().toString()))
        .doesNotExist();
    restart();
    assertThat(ts.tabletManager().replicas()).extracting(TabletReplica::tabletId)
        .containsExactly(healthy);
    TserverFixture.awaitLeader(healthy, List.of(ts));
    assertThat(fx.scanAll(ts, healthy, 100)).hasSizeGreaterThanOrEqualTo(50);
  }

  @Test
  void aCorruptSuperblockFailsOnlyItsReplicaAndTheServerStarts() throws IOException {
    twoFlushedTablets("log");
    int blocks = ts.blockManager().blockIds().size();
    ts.close();
    byte[] b = Files.readAllBytes(superblock(damaged));
    b[b.length / 2] ^= 0x5a;
    Files.write(superblock(damaged), b);
    ts = TserverFixture.start(opts);
    assertOnlyDamagedFailed(superblock(damaged).toString(), "CRC");
    // Its group left Ratis (it neither votes nor leads) but its Raft log is kept.
    await().atMost(Duration.ofSeconds(10)).until(
        () -> java.util.stream.StreamSupport.stream(ts.raftServer().getGroupIds().spliterator(),
            false).noneMatch(RaftIds.groupId(damaged)::equals));
    assertThat(dir.resolve("raft").resolve(RaftIds.groupId(damaged).getUuid().toString()))
        .isDirectoryContaining(p -> true);
    // Nothing of the damaged replica was deleted as an orphan: its blocks are still there.
    assertThat(ts.blockManager().blockIds()).hasSizeGreaterThanOrEqualTo(blocks);
    deleteDamagedLeavesNothing();
  }

  @Test
  void aCorruptTabletMetadataFileFailsOnlyItsReplicaAndKeepsItsData() throws IOException {
    twoFlushedTablets("log");
    int blocks = ts.blockManager().blockIds().size();
    ts.close();
    Path meta = dir.resolve("tablet-meta").resolve(damaged);
    Files.write(meta, new byte[] {(byte) 0xff, (byte) 0xff, 1, 2, 3});
    ts = TserverFixture.start(opts);
    assertOnlyDamagedFailed(meta.toString(), "corrupt");
    assertThat(superblock(damaged)).exists();
    assertThat(dir.resolve("raft").resolve(RaftIds.groupId(damaged).getUuid().toString()))
        .exists();
    assertThat(ts.blockManager().blockIds()).hasSize(blocks);
    deleteDamagedLeavesNothing();
  }

  @Test
  void aBlockMissingAtStartFailsOnlyItsReplica() throws IOException {
    twoFlushedTablets("file");
    BlockId lost = Superblock.read(ts.env(), superblock(damaged)).allBlocks().get(3);
    ts.close();
    Files.delete(blockFile(lost));
    ts = TserverFixture.start(opts);
    assertOnlyDamagedFailed("block " + lost);
    deleteDamagedLeavesNothing();
  }

  @Test
  void aBlockMissingAtRunTimeFailsTheReadWithCorruptionAndTheReplica() throws IOException {
    twoFlushedTablets("file");
    // Layer blocks: meta, key index, bloom, version index, deleted flag, id, v.
    BlockId lost = Superblock.read(ts.env(), superblock(damaged)).allBlocks().get(6);
    Files.delete(blockFile(lost));
    assertThatThrownBy(() -> fx.scanAll(ts, damaged, 100))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining(damaged).hasMessageContaining("block " + lost);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(
        () -> assertThat(report(damaged).getState()).isEqualTo(TabletStatePB.FAILED));
    assertOnlyDamagedFailed("block " + lost);
    assertThat(ts.isClosed()).isFalse();
  }

  /**
   * A corrupt committed record in a log block container: the server starts, the tablet whose
   * blocks are in that container is FAILED naming the block and the container's file.
   */
  @Test
  void aCorruptLogContainerFailsTheTabletsUsingItAndTheServerStarts() throws IOException {
    opts = TserverFixture.options(dir, TserverFixture.freePort());
    ts = TserverFixture.start(opts);
    fx.createTablet(damaged, List.of(ts));
    fx.createTablet(healthy, List.of(ts));
    TserverFixture.awaitLeader(damaged, List.of(ts));
    TserverFixture.awaitLeader(healthy, List.of(ts));
    assertThat(fx.write(ts, inserts(damaged, 0, 50, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(fx.write(ts, inserts(healthy, 0, 50, RowOpType.INSERT)).hasError()).isFalse();
    // The healthy tablet keeps its rows in its log.
    assertThat(ts.snapshotTablet(damaged)).isPositive();
    ts.close();
    Path meta;
    try (Stream<Path> s = Files.list(dir.resolve("blocks"))) {
      meta = s.filter(p -> p.toString().endsWith(".metadata"))
          .max(java.util.Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
    }
    byte[] b = Files.readAllBytes(meta);
    b[16 + 10] ^= 1; // the payload of the first CREATE record (the header is 16 bytes)
    Files.write(meta, b);
    ts = TserverFixture.start(opts);
    assertOnlyDamagedFailed(meta.toString(), "offset 16");
  }

  private Path blockFile(BlockId id) throws IOException {
    try (Stream<Path> s = Files.walk(dir.resolve("blocks"))) {
      return s.filter(p -> p.getFileName().toString().equalsIgnoreCase(
          String.format("%016x", id.value()))).findFirst().orElseThrow();
    }
  }
}
