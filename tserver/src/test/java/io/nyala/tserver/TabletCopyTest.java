package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.TestBytes;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.WrappedKey;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.Superblock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that joins after the leader purged its log is rebuilt by tablet copy: real Ratis,
 * real gRPC, the block store's superblock and blocks as the image.
 */
@Timeout(120)
class TabletCopyTest {
  private static final int ROWS_PER_BATCH = 200;
  private static final int BATCHES = 30;

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();
  private final String tablet = RaftIds.newId();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  /**
   * Writes a batch through whichever replica leads: with one of three replicas stopped, a busy
   * machine can move leadership between the other two. A retry after an unanswered success
   * shows up as per-row ALREADY_PRESENT errors, which leave the rows as wanted.
   */
  private void writeToLeader(List<TabletServer> live, int from, int to) {
    await().atMost(Duration.ofSeconds(30)).until(() -> !fx.write(
        TserverFixture.awaitLeader(tablet, live), inserts(tablet, from, to, RowOpType.INSERT))
        .hasError());
  }

  /** Small log segments and no purge gap, so a snapshot really purges the leader's log. */
  private TserverOptions options(int i, boolean encrypt) {
    TserverOptions o = TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort());
    if (encrypt) {
      o.encryptDataAtRest = true;
      o.encryptionKeyFile = dir.resolve("cluster.key").toString();
    }
    o.raftProperties.put("raft.server.log.appender.buffer.byte-limit", "64KB");
    o.raftProperties.put("raft.server.log.write.buffer.size", String.valueOf((64 << 10) + 8));
    o.raftProperties.put(RaftServerConfigKeys.Log.SEGMENT_SIZE_MAX_KEY, "64KB");
    o.raftProperties.put(RaftServerConfigKeys.Log.PURGE_GAP_KEY, "1");
    return o;
  }

  @Test
  void replacementOfAStoppedReplicaCatchesUpByCopyAndServesAsLeader() throws Exception {
    replaceByCopy(false);
  }

  @Test
  void copiedFilesAreEncryptedUnderTheDestinationsOwnKey() throws Exception {
    replaceByCopy(true);
    TabletServer other = servers.get(0).isClosed() ? servers.get(1) : servers.get(0);
    TabletServer joiner = servers.get(3);
    // The superblock: readable with the joiner's key only.
    Path superblock = dir.resolve("ts3").resolve("tablet-data").resolve(tablet);
    byte[] plain = joiner.env().readFile(superblock, OpenOptions.SENSITIVE);
    assertThat(Files.readAllBytes(superblock)).isNotEqualTo(plain);
    assertThatThrownBy(() -> other.env().readFile(superblock, OpenOptions.SENSITIVE))
        .isInstanceOf(NyalaException.class);
    // The blocks it lists were written here (new ids of this block manager), as ciphertext.
    List<BlockId> blocks = Superblock.decode(plain, superblock.toString()).allBlocks();
    assertThat(blocks).isNotEmpty();
    assertThat(joiner.blockManager().blockIds()).containsAll(blocks);
    BlockManager.ReadableBlock largest = blocks.stream().map(joiner.blockManager()::openBlock)
        .max(Comparator.comparingLong(BlockManager.ReadableBlock::size)).orElseThrow();
    byte[] content = largest.readAll();
    byte[] window = Arrays.copyOfRange(content, content.length / 2 - 16, content.length / 2 + 16);
    try (Stream<Path> files = Files.walk(dir.resolve("ts3"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertThat(TestBytes.indexOf(Files.readAllBytes(f), window))
            .as("plaintext of block %s in %s", largest.id(), f).isNegative();
      }
    }
  }

  private void replaceByCopy(boolean encrypt) throws Exception {
    if (encrypt) {
      FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    }
    for (int i = 0; i < 4; i++) {
      servers.add(TserverFixture.start(options(i, encrypt)));
    }
    List<TabletServer> first = servers.subList(0, 3);
    CreateTabletRequestPB.Builder create = TserverFixture.createRequest(tablet, first).toBuilder();
    if (encrypt) {
      WrappedKey w = FileKeyProvider.open(dir.resolve("cluster.key"))
          .wrapServerKey(KeyMaterial.random(256));
      create.setWrappedTabletKey(ByteString.copyFrom(w.wrapped()))
          .setTabletKeyVersion(w.clusterKeyVersion());
    }
    for (TabletServer ts : first) {
      assertThat(fx.admin(ts.rpcAddress()).createTablet(create.build()).hasError()).isFalse();
    }
    TabletServer firstLeader = TserverFixture.awaitLeader(tablet, first);
    TabletServer dead = first.stream().filter(s -> s != firstLeader).findFirst().orElseThrow();
    List<TabletServer> live = first.stream().filter(s -> s != dead).toList();
    TabletServer joiner = servers.get(3);
    CreateTabletRequestPB join = create.setJoining(true).build();
    RaftPeerPB joinerPeer = TserverFixture.peer(joiner);
    List<String> original = first.stream().map(TabletServer::uuid).toList();
    dead.close();

    for (int b = 0; b < BATCHES; b++) {
      writeToLeader(live, b * ROWS_PER_BATCH, (b + 1) * ROWS_PER_BATCH);
    }
    // Both live replicas purge, so whichever leads now has no log before its snapshot.
    for (TabletServer ts : live) {
      assertThat(ts.snapshotTablet(tablet)).isPositive();
      var division = ts.raftServer().getDivision(RaftIds.groupId(tablet));
      await().atMost(Duration.ofSeconds(20))
          .until(() -> division.getRaftLog().getStartIndex() > 1);
    }
    TabletServer leader = TserverFixture.awaitLeader(tablet, live);

    assertThat(fx.admin(joiner.rpcAddress()).createTablet(join).hasError()).isFalse();
    ChangeConfigResponsePB replaced = fx.admin(leader.rpcAddress()).changeConfig(
        ChangeConfigRequestPB.newBuilder().setTabletId(tablet)
            .setType(ChangeConfigTypePB.REPLACE_PEER).setNewPeer(joinerPeer)
            .setRemoveUuid(dead.uuid()).addAllExpectedPeerUuids(original).setTimeoutMs(60_000)
            .build());
    assertThat(replaced.getError().getCode()).as(replaced.getError().getMessage())
        .isEqualTo(StatusCodePB.OK);
    assertThat(joiner.metrics().value("tablet_copies_completed_total")).isEqualTo(1);
    await().atMost(Duration.ofSeconds(20)).until(() -> live.stream().allMatch(ts ->
        ts.metrics().value("tablet_copy_sessions_active") == 0
            && ts.tabletManager().get(tablet).stateMachine().openCopyImages() == 0));

    assertThat(fx.admin(leader.rpcAddress()).transferLeadership(TransferLeadershipRequestPB
        .newBuilder().setTabletId(tablet).setNewLeaderUuid(joiner.uuid()).setTimeoutMs(20_000)
        .build()).hasError()).isFalse();
    assertThat(TserverFixture.awaitLeader(tablet, servers.subList(3, 4))).isSameAs(joiner);
    List<Object[]> rows = fx.scanAll(joiner, tablet, 1000);
    assertThat(rows).extracting(r -> (Integer) r[0]).containsExactlyElementsOf(
        IntStream.range(0, BATCHES * ROWS_PER_BATCH).boxed().toList());
    assertThat(fx.write(joiner, inserts(tablet, -10, 0, RowOpType.INSERT)).hasError()).isFalse();
  }
}
