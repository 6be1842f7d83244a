package io.nyala.tserver;

import static io.nyala.tserver.TserverFixture.inserts;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletResponsePB;
import io.nyala.common.row.RowOpType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteTablet is a compare-and-set against the replica's own Raft configuration, and comes
 * only from this server's cluster (docs/data-safety.md, "Deletes"): a stale or unproven delete
 * is refused and the replica keeps serving; a dropped tablet's delete goes through.
 */
@Timeout(60)
class StaleDeleteTabletTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private TabletServer ts;

  @AfterEach
  void tearDown() {
    if (ts != null) {
      ts.close();
    }
    fx.close();
  }

  @Test
  void staleOrUnprovenDeletesAreRefusedAndTheReplicaSurvives() throws Exception {
    TserverOptions opts = TserverFixture.options(dir, TserverFixture.freePort());
    Files.createDirectories(Path.of(opts.fsWalDir));
    Files.writeString(Path.of(opts.fsWalDir).resolve("cluster_id"), "cluster-a",
        StandardCharsets.UTF_8);
    ts = TserverFixture.start(opts);
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, List.of(ts));
    TserverFixture.awaitLeader(tablet, List.of(ts));
    assertThat(fx.write(ts, inserts(tablet, 0, 20, RowOpType.INSERT)).hasError()).isFalse();
    long configIndex = ts.raftServer().getDivision(RaftIds.groupId(tablet)).getRaftConf()
        .getLogEntryIndex();
    assertThat(configIndex).isPositive();

    DeleteTabletResponsePB stale = delete(DeleteTabletRequestPB.newBuilder()
        .setCasConfigIndex(configIndex - 1));
    assertThat(stale.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(stale.getError().getMessage()).contains(tablet)
        .contains(Long.toString(configIndex)).contains(Long.toString(configIndex - 1));
    assertThat(delete(DeleteTabletRequestPB.newBuilder().setCasConfigIndex(configIndex))
        .getError().getMessage()).contains("lists this server as a member");
    assertThat(delete(DeleteTabletRequestPB.newBuilder()).getError().getCode())
        .isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(delete(DeleteTabletRequestPB.newBuilder().setTabletDropped(true)
        .setClusterId("cluster-b")).getError().getMessage())
        .contains("cluster-b").contains("cluster-a");

    assertThat(ts.tabletManager().get(tablet)).isNotNull();
    assertThat(fx.scanAll(ts, tablet, 100)).hasSize(20);
    assertThat(ts.metrics().value("delete_tablet_requests_refused_total")).isEqualTo(4);

    DeleteTabletResponsePB dropped = delete(DeleteTabletRequestPB.newBuilder()
        .setTabletDropped(true).setClusterId("cluster-a"));
    assertThat(dropped.hasError()).as(dropped.getError().getMessage()).isFalse();
    assertThat(ts.tabletManager().replicas()).isEmpty();
  }

  private DeleteTabletResponsePB delete(DeleteTabletRequestPB.Builder b) {
    return fx.admin(ts.rpcAddress()).deleteTablet(b.setTabletId(
        ts.tabletManager().replicas().iterator().next().tabletId()).setReason("test").build());
  }
}
