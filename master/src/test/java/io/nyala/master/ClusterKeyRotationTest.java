package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.master.GetClusterKeyStatusRequestPB;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB;
import io.nyala.common.proto.master.RotateClusterKeyRequestPB;
import io.nyala.common.proto.master.RotateClusterKeyResponsePB;
import io.nyala.common.proto.master.TSHeartbeatRequestPB;
import io.nyala.common.proto.master.TSHeartbeatResponsePB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.WrappedKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotating the cluster key on three masters with real Ratis (docs/encryption.md, "Rotating the
 * cluster key"): the catalog's tablet keys move while tables are created, followers move and
 * snapshot, a second rotation is refused while one is in progress, and after the old version is
 * retired every master restarts and opens every key.
 */
@Timeout(180)
class ClusterKeyRotationTest {
  @TempDir
  Path dir;

  private Path keyFile() {
    return dir.resolve("cluster.key");
  }

  private static GetClusterKeyStatusResponsePB status(MastersFixture f, int i) {
    return f.stub(i).getClusterKeyStatus(GetClusterKeyStatusRequestPB.getDefaultInstance());
  }

  private static RotateClusterKeyResponsePB rotate(MastersFixture f, int i, int version) {
    return f.stub(i).rotateClusterKey(RotateClusterKeyRequestPB.newBuilder()
        .setNewVersion(version).build());
  }

  @Test
  void catalogAndMastersMoveWhileTablesAreCreatedAndRestartAfterRetirement() throws Exception {
    List<FakeTServer> tservers = new ArrayList<>();
    List<String> created = new CopyOnWriteArrayList<>();
    try (MastersFixture f = MastersFixture.start(dir, 3, "--encrypt_data_at_rest",
        "--encryption_key_file=" + keyFile())) {
      int leader = f.awaitLeader();
      for (int i = 0; i < 3; i++) {
        tservers.add(new FakeTServer("ts-" + i));
        tservers.get(i).register(f.stub(leader));
      }
      assertThat(f.stub(leader).createTable(Tables.create("t0", 4, 3)).hasError()).isFalse();
      // One tablet server that encrypts, still under version 1.
      TSHeartbeatRequestPB atOne = TSHeartbeatRequestPB.newBuilder()
          .setRegistration(tservers.get(0).registration()).setClusterKeyVersion(1).build();
      f.stub(leader).tSHeartbeat(atOne);

      AtomicBoolean stop = new AtomicBoolean();
      Thread ddl = new Thread(() -> {
        for (int n = 1; !stop.get(); n++) {
          if (!f.stub(leader).createTable(Tables.create("c" + n, 2, 3)).hasError()) {
            created.add("c" + n);
          }
        }
      });
      ddl.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> created.size() >= 2);
      // A follower master is down during the rotation: it catches up when it is back.
      int away = (leader + 1) % 3;
      f.awaitEveryMasterHolds("t0", created.get(0));
      f.stopMaster(away);
      assertThat(FileKeyProvider.addVersion(keyFile(), 256)).isEqualTo(2);
      RotateClusterKeyResponsePB r = rotate(f, leader, 2);
      assertThat(r.hasError()).as("%s", r.getError()).isFalse();
      await().atMost(Duration.ofSeconds(30)).until(() -> created.size() >= 4);
      stop.set(true);
      ddl.join();

      // The tablet server at version 1 is told version 2, and holds up the next rotation.
      TSHeartbeatResponsePB hb = f.stub(leader).tSHeartbeat(atOne);
      assertThat(hb.getClusterKeyVersion()).isEqualTo(2);
      RotateClusterKeyResponsePB second = rotate(f, leader, 3);
      assertThat(second.getError().getMessage()).contains("version 2 is still in progress")
          .contains("tablet servers moved: 2/3");
      f.stub(leader).tSHeartbeat(atOne.toBuilder().setClusterKeyVersion(2).build());

      f.startMaster(away);
      for (int i = 0; i < 3; i++) {
        int m = i;
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          GetClusterKeyStatusResponsePB st = status(f, m);
          assertThat(st.getCurrentVersion()).as("master %d provider", m).isEqualTo(2);
          assertThat(st.getInstanceKeyVersion()).as("master %d instance", m).isEqualTo(2);
          assertThat(st.getLogKeyVersionsList()).as("master %d log", m).doesNotContain(1);
        });
      }
      await().atMost(Duration.ofSeconds(30)).until(
          () -> status(f, leader).getCatalogKeysBehind() == 0);
      FileKeyProvider.retireVersionsBefore(keyFile(), 2);
      assertThat(FileKeyProvider.open(keyFile()).versions()).containsExactly(2);

      for (int i = 0; i < 3; i++) {
        f.stopMaster(i);
      }
      for (int i = 0; i < 3; i++) {
        f.startMaster(i);
      }
      int next = f.awaitLeader();
      List<String> tables = new ArrayList<>(created);
      tables.add("t0");
      f.awaitEveryMasterHolds(tables.toArray(String[]::new));
      FileKeyProvider keys = FileKeyProvider.open(keyFile());
      List<SysTabletEntryPB> tablets = f.master(next).catalog().catalog()
          .read(s -> List.copyOf(s.tablets()));
      assertThat(tablets).hasSizeGreaterThanOrEqualTo(4 + 2 * 4);
      for (SysTabletEntryPB t : tablets) {
        assertThat(t.getTabletKeyVersion()).as(t.getTabletId()).isEqualTo(2);
        keys.unwrapServerKey(new WrappedKey(2, t.getWrappedTabletKey().toByteArray()),
            t.getTabletId());
      }
      for (int i = 0; i < 3; i++) {
        assertThat(status(f, i).getInstanceKeyVersion()).isEqualTo(2);
      }
    } finally {
      tservers.forEach(FakeTServer::close);
    }
  }
}
