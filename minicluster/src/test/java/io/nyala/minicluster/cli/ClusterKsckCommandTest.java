package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nyala cluster ksck}: every replica RUNNING and exit 0 on a healthy cluster; a replica
 * FAILED by a damaged superblock shows with its error, and the exit status is 1
 * (docs/data-safety.md, "Damage is contained").
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClusterKsckCommandTest {
  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("id", Type.INT64).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));

  @TempDir
  Path dir;

  @Test
  void listsReplicaStatesAndFailsOnAFailedReplica() throws Exception {
    try (MiniCluster c = MiniCluster.builder().numMasters(1).numTabletServers(3)
            .dataRoot(dir.resolve("c")).tserverFlag("--heartbeat_interval_ms=300").build();
        NyalaClient client = c.newClient()) {
      NyalaTable table = client.createTable("k", SCHEMA, new CreateTableOptions()
          .addHashPartitions(List.of("id"), 2).setNumReplicas(3));
      NyalaSession session = client.newSession();
      for (long i = 0; i < 20; i++) {
        Operation op = table.newInsert();
        op.getRow().addLong("id", i).addString("v", "v" + i);
        session.apply(op);
      }
      session.close();
      String config = c.clientConfigFile().toString();
      await().atMost(Duration.ofSeconds(20)).until(
          () -> CliRun.nyala("cluster", "ksck", "--client-config", config).status() == 0);
      CliRun healthy = CliRun.nyala("cluster", "ksck", "--client-config", config);
      assertThat(healthy.out()).contains("2 tablets, 0 not healthy").doesNotContain("FAILED");
      assertThat(healthy.out().lines().filter(l -> l.contains(" RUNNING "))).hasSize(6);
      // The list commands over TLS, as the user of the client config (ClusterListCommandsTest
      // runs them plaintext).
      CliRun masters = CliRun.nyala("master", "list", "--client-config", config);
      assertThat(masters.status()).as(masters.err()).isZero();
      assertThat(masters.out()).contains(c.master(0).uuid()).contains("LEADER");
      CliRun tservers = CliRun.nyala("tserver", "list", "--client-config", config);
      assertThat(tservers.status()).as(tservers.err()).isZero();
      assertThat(tservers.out().lines().filter(l -> l.contains(" live "))).hasSize(3);

      String tablet = c.inProcessTabletServer(0).tabletManager().replicas().iterator().next()
          .tabletId();
      c.inProcessTabletServer(0).snapshotTablet(tablet);
      c.stopTabletServer(0);
      Path superblock = c.dataRoot().resolve(c.tabletServer(0).name()).resolve("wal")
          .resolve("tablet-data").resolve(tablet);
      byte[] b = Files.readAllBytes(superblock);
      b[b.length / 2] ^= 0x5a;
      Files.write(superblock, b);
      c.startTabletServer(0);

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        CliRun run = CliRun.nyala("cluster", "ksck", "--client-config", config);
        assertThat(run.status()).as(run.out()).isEqualTo(1);
        assertThat(run.out()).contains("2 tablets, 1 not healthy");
        assertThat(run.out().lines().filter(l -> l.contains(" FAILED ")).toList())
            .singleElement().asString().contains(tablet).contains(c.tabletServer(0).uuid())
            .contains(superblock.toString());
      });
    }
  }

  /** Real hibernated tablets: every replica HIBERNATED, no NO LEADER row, exit 0. */
  @Test
  void aClusterWhoseTabletsAllHibernateIsHealthy() throws Exception {
    try (MiniCluster c = MiniCluster.builder().numMasters(1).numTabletServers(3)
            .dataRoot(dir.resolve("c")).tserverFlag("--heartbeat_interval_ms=300")
            .tserverFlag("--tablet_hibernate_after_ms=300").build();
        NyalaClient client = c.newClient()) {
      client.createTable("cold", SCHEMA, new CreateTableOptions()
          .addHashPartitions(List.of("id"), 2).setNumReplicas(3));
      String config = c.clientConfigFile().toString();

      await().atMost(Duration.ofSeconds(45)).untilAsserted(() -> {
        CliRun run = CliRun.nyala("cluster", "ksck", "--client-config", config);
        assertThat(run.status()).as(run.out()).isZero();
        assertThat(run.out()).contains("2 tablets, 0 not healthy").doesNotContain("NO LEADER");
        assertThat(run.out().lines().filter(l -> l.contains(" HIBERNATED "))).hasSize(6);
      });
    }
  }

  /** A tablet whose replicas all hibernate (docs/dense-nodes.md) is healthy with no leader. */
  @Test
  void aTabletWhoseReplicasAllHibernateIsHealthyWithoutALeaderButNotOneHalfAwake() {
    ListTablesResponsePB.TableInfo table = ListTablesResponsePB.TableInfo.newBuilder()
        .setName("cold").setNumReplicas(3).build();
    TabletLocationsPB.Builder tl = TabletLocationsPB.newBuilder().setTabletId("t1");
    Map<String, Map<String, ListTabletsResponsePB.StatusPB>> hosted = new HashMap<>();
    for (String uuid : List.of("a", "b", "c")) {
      tl.addReplicas(TabletLocationsPB.ReplicaPB.newBuilder()
          .setTsInfo(TSInfoPB.newBuilder().setUuid(uuid)).setRole(RaftRolePB.FOLLOWER));
      hosted.put(uuid, new HashMap<>(Map.of("t1", ListTabletsResponsePB.StatusPB.newBuilder()
          .setTabletId("t1").setState("HIBERNATED").build())));
    }

    assertThat(ClusterKsckCommand.checkTablet(table, tl.build(), hosted, Map.of())).isTrue();

    hosted.get("a").put("t1", ListTabletsResponsePB.StatusPB.newBuilder().setTabletId("t1")
        .setState("RUNNING").setRole(RaftRolePB.FOLLOWER).build());
    assertThat(ClusterKsckCommand.checkTablet(table, tl.build(), hosted, Map.of()))
        .as("a woken replica with no leader yet").isFalse();
  }
}
