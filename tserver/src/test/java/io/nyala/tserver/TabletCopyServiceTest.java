package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.BeginTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.BeginTabletCopySessionResponsePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.EndTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.FetchDataRequestPB;
import io.nyala.common.proto.tserver.FetchDataResponsePB;
import io.nyala.common.proto.tserver.TabletCopyItemPB;
import io.nyala.common.proto.tserver.TabletCopyServiceGrpc;
import io.nyala.common.row.RowOpType;
import io.nyala.common.rpc.Channels;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.tablet.Superblock;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The source side of tablet copy on one real tablet server: sessions, chunks, pins, expiry. */
@Timeout(60)
class TabletCopyServiceTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final Channels channels = new Channels();
  private final String tablet = RaftIds.newId();
  private TabletServer ts;
  private TabletCopyServiceGrpc.TabletCopyServiceBlockingStub copy;

  @BeforeEach
  void setUp() {
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.tabletCopySessionTtlMs = 5000;
    ts = TserverFixture.start(o);
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    copy = TabletCopyServiceGrpc.newBlockingStub(channels.get(ts.rpcAddress()));
  }

  @AfterEach
  void tearDown() {
    ts.close();
    channels.close();
    fx.close();
  }

  private void write(int from, int to) {
    assertThat(fx.write(ts, inserts(tablet, from, to, RowOpType.INSERT)).hasError()).isFalse();
  }

  private BeginTabletCopySessionResponsePB begin(String tabletId) {
    return copy.beginTabletCopySession(BeginTabletCopySessionRequestPB.newBuilder()
        .setTabletId(tabletId).setRequestorUuid("test").build());
  }

  private FetchDataResponsePB fetch(String session, String item, long offset, int max) {
    return copy.fetchData(FetchDataRequestPB.newBuilder().setSessionId(session)
        .setItemId(item).setOffset(offset).setMaxLength(max).build());
  }

  @Test
  void chunksResumeAtAnyOffsetAndTheSessionPinsTheSnapshotIndex() {
    BeginTabletCopySessionResponsePB none = begin(tablet);
    assertThat(none.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(none.getError().getMessage()).contains(tablet).contains("no snapshot");
    assertThat(begin(RaftIds.newId()).getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);

    write(0, 100);
    long snap = ts.snapshotTablet(tablet);
    BeginTabletCopySessionResponsePB s = begin(tablet);
    assertThat(s.hasError()).as(s.getError().getMessage()).isFalse();
    assertThat(s.getLastIndex()).isEqualTo(snap);
    // The image: the superblock as manifest, the blocks it lists as items.
    Superblock sb = Superblock.decode(s.getManifest().toByteArray(), "manifest");
    assertThat(sb.durableIndex()).isEqualTo(snap);
    assertThat(s.getItemsList()).extracting(TabletCopyItemPB::getItemId)
        .containsExactlyElementsOf(sb.allBlocks().stream().map(BlockId::toString).toList());
    TabletCopyItemPB largest = s.getItemsList().stream()
        .max(Comparator.comparingLong(TabletCopyItemPB::getLength)).orElseThrow();
    String item = largest.getItemId();
    long length = largest.getLength();
    assertThat(length).isGreaterThan(200);

    ByteArrayOutputStream whole = new ByteArrayOutputStream();
    for (long off = 0; off < length; ) {
      FetchDataResponsePB r = fetch(s.getSessionId(), item, off, 1000);
      CRC32C crc = new CRC32C();
      crc.update(r.getData().toByteArray());
      assertThat(r.getCrc32C()).isEqualTo((int) crc.getValue());
      whole.writeBytes(r.getData().toByteArray());
      off += r.getData().size();
    }
    assertThat(whole.size()).isEqualTo((int) length);
    byte[] middle = fetch(s.getSessionId(), item, 123, 77).getData().toByteArray();
    assertThat(middle).isEqualTo(Arrays.copyOfRange(whole.toByteArray(), 123, 200));
    assertThat(fetch(s.getSessionId(), item, length, 10).getData().isEmpty()).isTrue();
    assertThat(fetch(s.getSessionId(), "no-such-item", 0, 10).getError().getMessage())
        .contains("no-such-item");

    // While the session is open a snapshot keeps the old index, so the log after it stays.
    write(100, 110);
    assertThat(ts.snapshotTablet(tablet)).isEqualTo(snap);

    copy.endTabletCopySession(EndTabletCopySessionRequestPB.newBuilder()
        .setSessionId(s.getSessionId()).build());
    FetchDataResponsePB ended = fetch(s.getSessionId(), item, 0, 10);
    assertThat(ended.getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(ended.getError().getMessage()).contains(s.getSessionId());
    write(110, 120);
    assertThat(ts.snapshotTablet(tablet)).isGreaterThan(snap);
  }

  @Test
  void anIdleSessionExpiresAndReleasesItsPin() {
    write(0, 10);
    ts.snapshotTablet(tablet);
    BeginTabletCopySessionResponsePB s = begin(tablet);
    assertThat(s.hasError()).as(s.getError().getMessage()).isFalse();
    await().atMost(Duration.ofSeconds(20))
        .until(() -> ts.metrics().value("tablet_copy_sessions_active") == 0);
    assertThat(ts.tabletManager().get(tablet).stateMachine().openCopyImages()).isZero();
    assertThat(fetch(s.getSessionId(), s.getItems(0).getItemId(), 0, 10).getError().getCode())
        .isEqualTo(StatusCodePB.NOT_FOUND);
  }

  @Test
  void deletingTheTabletEndsItsSessions() {
    write(0, 10);
    ts.snapshotTablet(tablet);
    BeginTabletCopySessionResponsePB s = begin(tablet);
    assertThat(s.hasError()).as(s.getError().getMessage()).isFalse();
    assertThat(ts.metrics().value("tablet_copy_sessions_active")).isEqualTo(1);
    assertThat(fx.admin(ts.rpcAddress()).deleteTablet(DeleteTabletRequestPB.newBuilder()
        .setTabletId(tablet).setTabletDropped(true).build()).hasError()).isFalse();
    assertThat(ts.metrics().value("tablet_copy_sessions_active")).isZero();
    assertThat(fetch(s.getSessionId(), s.getItems(0).getItemId(), 0, 10).getError().getCode())
        .isEqualTo(StatusCodePB.NOT_FOUND);
  }
}
