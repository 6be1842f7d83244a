package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.master.MasterServer;
import io.nyala.minicluster.evidence.DataRootDisposal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MiniClusterTest {
  @TempDir
  Path tmp;

  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("k", Type.INT64).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));

  @Test
  void serversGetOwnLoopbackAddressesThatSurviveRestarts() {
    Path root = tmp.resolve("c1");
    try (MiniCluster c = MiniCluster.builder().numTabletServers(2).dataRoot(root).build()) {
      ServerInfo m = c.master(0);
      ServerInfo t0 = c.tabletServer(0);
      ServerInfo t1 = c.tabletServer(1);
      assertThat(m.name()).isEqualTo("master-1");
      assertThat(t0.name()).isEqualTo("ts-1");
      assertThat(m.rpcAddress().host()).startsWith("127.").isNotEqualTo("127.0.0.1");
      assertThat(t0.rpcAddress().host()).isNotEqualTo(t1.rpcAddress().host());
      assertThat(t0.rpcAddress().port()).isEqualTo(7050);
      // Each in-process server's lines also go to its own file, as a server process's do.
      for (String name : List.of("master-1", "ts-1", "ts-2")) {
        String log = readLog(root.resolve(name).resolve("server.log"));
        assertThat(log).as(name + "'s server.log").contains("[" + name + "]")
            .contains(name.startsWith("ts") ? "serving RPC" : "started");
        assertThat(log.lines().filter(l -> !l.contains("[" + name + "]")
            && l.matches("^\\d{4}-.*"))).as("lines of other servers in %s's log", name)
            .isEmpty();
      }
      String uuid = t0.uuid();
      assertThat(uuid).hasSize(32);

      c.restartTabletServer(0);
      assertThat(c.tabletServer(0).rpcAddress()).isEqualTo(t0.rpcAddress());
      assertThat(c.tabletServer(0).uuid()).isEqualTo(uuid);
      c.stopTabletServer(1);
      assertThat(c.tabletServer(1).running()).isFalse();
      c.startTabletServer(1);
      c.waitForTabletServers();
      c.restartMaster(0);
      c.waitForTabletServers();
    }
    // close() hands the data root to KeepClusterOnFailure, which deletes it when this test
    // passes (KeepClusterOnFailureTest checks that part).
    assertThat(DataRootDisposal.deletedOrPending(root)).as("close() removes the data").isTrue();
  }

  private static String readLog(Path f) {
    try {
      return Files.readString(f);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Under TLS and authentication (the default): the client keeps its token across the loss of
   * the leader, whose signing keys the new leader takes over from the sys catalog.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void threeMastersSurviveTheLossOfTheLeader() {
    try (MiniCluster c = MiniCluster.builder().numMasters(3).numTabletServers(1)
            .dataRoot(tmp.resolve("c3")).build();
        NyalaClient client = c.newClient()) {
      int leader = c.leaderMasterIndex();
      assertThat(leader).isBetween(0, 2);
      client.createTable("t", SCHEMA, new CreateTableOptions().setNumReplicas(1));
      // Losing the leader is survivable once both others hold the catalog: Ratis does not
      // count the vote of a member that has received nothing (docs/decisions.md, RATIS-1995).
      for (int i = 0; i < 3; i++) {
        MasterServer m = c.inProcessMaster(i);
        await().atMost(Duration.ofSeconds(20)).until(() ->
            m.catalog().catalog().read(s -> s.tableByName("t") != null));
      }

      c.stopMaster(leader);
      // The client finds the new leader; the tablet server re-registers with it.
      assertThat(client.listTables()).containsExactly("t");
      c.waitForTabletServers();
      assertThat(c.leaderMasterIndex()).isNotEqualTo(leader).isNotNegative();
      c.startMaster(leader);
      client.createTable("u", SCHEMA, new CreateTableOptions().setNumReplicas(1));
      assertThat(client.listTables()).containsExactlyInAnyOrder("t", "u");
    }
  }

  /**
   * A client that kept calling a master while it was down (its channel deep in gRPC's reconnect
   * backoff: 1 s, 1.6 s, 2.6 s, 4.1 s, 6.6 s ...) reaches it as soon as it is back, within a
   * 3 s deadline; before, its calls failed at once until the backoff's next attempt, seconds
   * after the master was up.
   */
  @Test
  void aClientReachesARestartedMasterAtOnceHoweverLongItKeptFailing() throws Exception {
    try (MiniCluster c = MiniCluster.builder().numTabletServers(0)
            .dataRoot(tmp.resolve("backoff")).build();
        NyalaClient client = c.clientBuilder().defaultAdminOperationTimeoutMs(3_000).build()) {
      assertThat(client.listTables()).isEmpty();
      c.stopMaster(0);
      long down = System.nanoTime();
      int failed = 0;
      while (System.nanoTime() - down < TimeUnit.SECONDS.toNanos(10)) {
        try {
          client.listTables();
        } catch (NyalaException expected) {
          failed++;
        }
      }
      assertThat(failed).as("calls while the master was down").isPositive();
      c.startMaster(0);
      assertThat(client.listTables()).as("the first call after the master is back").isEmpty();
    }
  }

  @Test
  void keptDataRestartsWithTheSameAddressesAndTables() {
    Path root = tmp.resolve("c2");
    String masters;
    try (MiniCluster c = MiniCluster.builder().numTabletServers(1).dataRoot(root)
        .keepData(true).build()) {
      masters = c.masterAddresses();
      NyalaClient client = c.newClient();
      client.createTable("kept", SCHEMA, new CreateTableOptions().setNumReplicas(1));
    }
    assertThat(Files.exists(root.resolve("minicluster.properties"))).isTrue();
    try (MiniCluster c = MiniCluster.builder().numTabletServers(1).dataRoot(root).build()) {
      assertThat(c.masterAddresses()).isEqualTo(masters);
      assertThat(c.newClient().tableExists("kept")).isTrue();
    }
  }

  @Test
  void badBuilderArgumentsAreRejected() {
    assertThatThrownBy(() -> MiniCluster.builder().numMasters(0))
        .hasMessageContaining("at least 1 master");
    assertThatThrownBy(() -> MiniCluster.builder().numTabletServers(-1))
        .hasMessageContaining("-1");
  }
}
