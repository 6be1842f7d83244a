package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.row.RowOpType;
import io.nyala.common.rpc.Channels;
import io.nyala.tserver.copy.TabletCopyClient;
import io.nyala.tserver.tablet.image.TabletImageInstaller;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tablet copy stops when its tablet is deleted (docs/data-safety.md, "Damage is contained"): a
 * DeleteTablet that arrives while the replica copies from its leader cancels the copy; no
 * superblock or metadata appears afterwards and the blocks it fetched are deleted.
 */
@Timeout(60)
class TabletCopyCancelTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final Channels channels = new Channels();
  private final ExecutorService copies = Executors.newSingleThreadExecutor();
  private final ExecutorService async = Executors.newSingleThreadExecutor();
  private TabletServer leader;
  private TabletServer joiner;
  private final String tablet = RaftIds.newId();

  @AfterEach
  void tearDown() {
    async.shutdownNow();
    copies.shutdownNow();
    for (TabletServer ts : new TabletServer[] {joiner, leader}) {
      if (ts != null) {
        ts.close();
      }
    }
    channels.close();
    fx.close();
  }

  /** Passes everything to the real installer, but holds the copy once a block is committed. */
  private static final class Gate implements TabletImageInstaller {
    final TabletImageInstaller into;
    final CountDownLatch blockCommitted = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    String firstItem;

    Gate(TabletImageInstaller into) {
      this.into = into;
    }

    @Override
    public void begin(byte[] manifest, long lastIndex, long lastTerm) throws IOException {
      into.begin(manifest, lastIndex, lastTerm);
    }

    @Override
    public long received(String itemId) {
      return into.received(itemId);
    }

    @Override
    public void write(String itemId, long offset, byte[] data, int off, int len)
        throws IOException {
      into.write(itemId, offset, data, off, len);
      if (firstItem == null) {
        firstItem = itemId;
      } else if (!itemId.equals(firstItem) && blockCommitted.getCount() > 0) {
        // Starting the second item committed the first as a block of the joiner.
        blockCommitted.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void install() throws IOException {
      into.install();
    }

    @Override
    public void abort() {
      into.abort();
    }
  }

  @Test
  void aDeleteTabletDuringACopyCancelsItAndLeavesNoSuperblockMetadataOrBlocks()
      throws Exception {
    leader = TserverFixture.start(TserverFixture.options(dir.resolve("l"),
        TserverFixture.freePort()));
    joiner = TserverFixture.start(TserverFixture.options(dir.resolve("j"),
        TserverFixture.freePort()));
    fx.createTablet(tablet, List.of(leader));
    TserverFixture.awaitLeader(tablet, List.of(leader));
    assertThat(fx.write(leader, inserts(tablet, 0, 500, RowOpType.INSERT)).hasError()).isFalse();
    assertThat(leader.snapshotTablet(tablet)).isPositive();
    int joinerBlocksBefore = joiner.blockManager().blockIds().size();

    TabletCopyClient client = new TabletCopyClient(channels, joiner.uuid(), copies,
        new MetricRegistry("test"), new TabletCopyClient.Options(4 << 10, 10_000, 2, 1, 4, 1));
    AtomicReference<Gate> gate = new AtomicReference<>();
    AtomicReference<CompletableFuture<TermIndex>> copy = new AtomicReference<>();
    joiner.tabletManager().setCopier((String id, HostPort from, TabletImageInstaller into) -> {
      Gate g = new Gate(into);
      gate.set(g);
      CompletableFuture<TermIndex> f = client.copy(id, from, g);
      copy.set(f);
      return f;
    });
    CreateTabletRequestPB join = TserverFixture.createRequest(tablet, List.of(leader))
        .toBuilder().setJoining(true).build();
    assertThat(fx.admin(joiner.rpcAddress()).createTablet(join).hasError()).isFalse();
    TabletServerAdminServiceGrpc.TabletServerAdminServiceBlockingStub leaderAdmin =
        fx.admin(leader.rpcAddress());
    async.submit(() -> leaderAdmin.changeConfig(ChangeConfigRequestPB.newBuilder()
        .setTabletId(tablet).setType(ChangeConfigTypePB.ADD_PEER)
        .setNewPeer(TserverFixture.peer(joiner)).setTimeoutMs(10_000).build()));

    await().atMost(Duration.ofSeconds(20)).until(() -> gate.get() != null
        && gate.get().blockCommitted.getCount() == 0);
    assertThat(joiner.blockManager().blockIds()).hasSizeGreaterThan(joinerBlocksBefore);
    var deleted = fx.admin(joiner.rpcAddress()).deleteTablet(DeleteTabletRequestPB.newBuilder()
        .setTabletId(tablet).setReason("test: deleted during its copy").build());
    assertThat(deleted.hasError()).as(deleted.getError().getMessage()).isFalse();
    gate.get().release.countDown();

    await().atMost(Duration.ofSeconds(20)).until(() -> copy.get().isDone());
    assertThat(copy.get()).isCompletedExceptionally();
    Path j = dir.resolve("j");
    assertThat(j.resolve("tablet-data").resolve(tablet)).doesNotExist();
    assertThat(j.resolve("tablet-meta").resolve(tablet)).doesNotExist();
    assertThat(joiner.blockManager().blockIds()).hasSize(joinerBlocksBefore);
    assertThat(joiner.tabletManager().replicas()).isEmpty();
  }
}
