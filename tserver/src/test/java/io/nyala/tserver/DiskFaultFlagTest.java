package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.DiskFaults;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.web.StatusPage;
import io.nyala.tserver.web.TabletsPage;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real tablet server started with {@code --fault_disk_errors} on its data dir
 * (docs/data-safety.md, "Disk faults"): a full disk fails flushes while writes and scans go on,
 * and flushes resume once the fault is cleared; an EIO on a block fsync fails the replica, and
 * writes to it then fail naming the tablet and the fault; a bad spec stops the start.
 */
@Timeout(60)
class DiskFaultFlagTest {
  @TempDir
  Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;
  private final String tablet = RaftIds.newId();

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  private void start(String fault) {
    TserverOptions o = TserverFixture.options(dir.resolve("ts"), TserverFixture.freePort());
    o.fsDataDirs = List.of(data().toString());
    o.unlockUnsafeFlags = true;
    o.faultDiskErrors = List.of(fault);
    ts = TserverFixture.start(o);
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
  }

  private Path data() {
    return dir.resolve("data");
  }

  private void write(int from, int to) {
    WriteResponsePB w = fx.write(ts, inserts(tablet, from, to, RowOpType.INSERT));
    assertThat(w.hasError()).as("write error %s", w.getError()).isFalse();
  }

  @Test
  void aFullDataDirFailsFlushesButNotWritesOrScansUntilCleared() {
    start("ENOSPC:WRITE:" + data());
    assertThat(ts.diskFaults().rules()).containsExactly(
        new DiskFaults.Rule(DiskFaults.Op.WRITE, DiskFaults.Kind.ENOSPC, data(), true));
    write(0, 100);
    assertThatThrownBy(() -> ts.snapshotTablet(tablet))
        .hasMessageContaining("tablet " + tablet + ": flush failed, the disk is full");
    write(100, 150);
    assertThat(fx.scanAll(ts, tablet, 40)).hasSize(150);
    BlockTabletStore store = ts.tabletManager().get(tablet).blockStore();
    assertThat(store.diskFull()).isNotNull();
    assertThat(store.durableIndex()).isZero();
    assertThat(TabletsPage.render(ts)).contains("flush failed, the disk is full");
    assertThat(StatusPage.render(ts, false)).contains("1 replica cannot flush: the disk is full")
        .doesNotContain("Failed data dirs").doesNotContain(tablet);

    ts.diskFaults().clear();
    assertThat(ts.snapshotTablet(tablet)).isPositive();
    assertThat(store.diskFull()).isNull();
    assertThat(TabletsPage.render(ts)).doesNotContain("the disk is full");
    assertThat(StatusPage.render(ts, false)).doesNotContain("the disk is full");
    assertThat(fx.scanAll(ts, tablet, 40)).hasSize(150);
  }

  @Test
  void eioOnABlockFsyncFailsTheReplicaAndWritesToItNameTheCause() {
    start("EIO:SYNC:" + data());
    write(0, 100);
    assertThatThrownBy(() -> ts.snapshotTablet(tablet))
        .hasMessageContaining("flush failed on a disk error");
    WriteResponsePB w = fx.write(ts, inserts(tablet, 100, 101, RowOpType.INSERT));
    assertThat(w.hasError()).isTrue();
    assertThat(w.getError().getMessage()).contains(tablet).contains("FAILED")
        .contains("flush failed on a disk error").contains("Input/output error");
    assertThat(ts.tabletManager().get(tablet).state().name()).isEqualTo("FAILED");
    assertThat(StatusPage.render(ts, false)).contains("Failed data dirs")
        .contains(data().resolve("blocks").toString()).contains("cannot sync");
  }

  @Test
  void aBadSpecStopsTheStartNamingIt() {
    assertThatThrownBy(() -> start("EIO:FSYNC:" + data()))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("disk fault 'EIO:FSYNC:" + data() + "'");
  }
}
