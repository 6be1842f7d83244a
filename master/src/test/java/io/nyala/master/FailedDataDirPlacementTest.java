package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.TabletReportPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tablet servers report their failed data dirs in heartbeats (docs/data-safety.md, "Disk
 * faults"): a real master over real gRPC places no new replica on one whose every data dir
 * failed, still places on one with a healthy dir left, and shows the failed dirs in
 * ListTabletServers and on its tablet-servers page.
 */
@Timeout(60)
class FailedDataDirPlacementTest {
  @TempDir Path dir;

  @Test
  void aTServerWhoseEveryDataDirFailedTakesNoNewReplica() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir);
        FakeTServer healthy = new FakeTServer("ts-healthy");
        FakeTServer half = new FakeTServer("ts-half");
        FakeTServer dead = new FakeTServer("ts-disks-gone")) {
      TabletReportPB full = TabletReportPB.getDefaultInstance();
      healthy.heartbeat(m.stub(), full, 2, List.of());
      half.heartbeat(m.stub(), full, 2, List.of("/data/1/blocks"));
      dead.heartbeat(m.stub(), full, 2, List.of("/data/1/blocks", "/data/2/blocks"));

      CreateTableResponsePB ok = m.stub().createTable(Tables.create("spread", 6, 2));
      assertThat(ok.hasError()).as(ok.getError().getMessage()).isFalse();
      Set<String> used = new HashSet<>();
      for (SysTabletEntryPB t : m.master.catalog().catalog()
          .read(s -> s.tabletsOf(ok.getTableId()))) {
        t.getReplicasList().forEach(r -> used.add(r.getUuid()));
      }
      assertThat(used).containsExactlyInAnyOrder(healthy.uuid, half.uuid);

      CreateTableResponsePB tooWide = m.stub().createTable(Tables.create("wide", 1, 3));
      assertThat(tooWide.getError().getMessage()).contains("replication factor 3: 2 are alive")
          .contains("every data dir failed");

      ListTabletServersResponsePB list = m.stub().listTabletServers(
          ListTabletServersRequestPB.getDefaultInstance());
      var gone = list.getServersList().stream()
          .filter(e -> e.getTsInfo().getName().equals("ts-disks-gone")).findFirst().orElseThrow();
      assertThat(gone.getLive()).isTrue();
      assertThat(gone.getNumDataDirs()).isEqualTo(2);
      assertThat(gone.getFailedDataDirsList())
          .containsExactly("/data/1/blocks", "/data/2/blocks");

      String page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://" + m.master.httpAddress() + "/tablet-servers")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(page).contains("failed data dirs").contains("1 of 2: /data/1/blocks")
          .contains("2 of 2: /data/1/blocks, /data/2/blocks (takes no new replica)");

      // The dirs work again after the tserver's restart: it takes replicas again.
      dead.heartbeat(m.stub(), null, 2, List.of());
      CreateTableResponsePB wide = m.stub().createTable(Tables.create("wide", 1, 3));
      assertThat(wide.hasError()).as(wide.getError().getMessage()).isFalse();
    }
  }
}
