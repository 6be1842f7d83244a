package io.nyala.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.RowResult;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Three masters and three tablet servers in containers, driven by a client on the host through
 * published ports and advertised addresses (docs/docker.md). The steps share one cluster and run
 * in order: the later ones stop containers.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NyalaClusterIT {
  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("id", Type.INT64).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));
  private static NyalaCluster cluster;
  private static NyalaClient client;

  @BeforeAll
  static void startCluster() {
    NyalaTestImage.assumeDocker();
    cluster = new NyalaCluster(NyalaTestImage.get()).withMasters(3).withTabletServers(3);
    cluster.start();
    client = cluster.newClient();
  }

  @AfterAll
  static void stopCluster() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.stop();
    }
  }

  @Test
  @Order(1)
  void serversRunAsNonRootAndAreHealthy() throws Exception {
    for (int i = 0; i < 3; i++) {
      String uid = cluster.getTabletServer(i).execInContainer("id", "-u").getStdout().strip();
      assertThat(uid).as("uid in ts-%d", i + 1).isNotEqualTo("0").isEqualTo("10001");
      assertThat(cluster.getMaster(i).execInContainer("/opt/nyala/healthcheck.sh").getExitCode())
          .as("the image's HEALTHCHECK in master-%d", i + 1).isZero();
    }
    assertThat(cluster.getMasterAddresses()).hasSize(3)
        .allSatisfy(a -> assertThat(a).startsWith("127.0.0.1:"));
  }

  @Test
  @Order(2)
  void aHostClientWritesAndReadsTenThousandRowsWithThreeReplicas() {
    NyalaTable t = client.createTable("rows", SCHEMA,
        new CreateTableOptions().addHashPartitions(List.of("id"), 3).setNumReplicas(3));
    write(t, 0, 10_000);
    assertThat(count(t)).isEqualTo(10_000);
  }

  @Test
  @Order(3)
  void writesGoOnWithATabletServerStopped() {
    cluster.getTabletServer(2).stop();
    NyalaTable t = client.openTable("rows");
    await().atMost(Duration.ofMinutes(2)).ignoreExceptions()
        .untilAsserted(() -> write(t, 10_000, 10_100));
    assertThat(count(t)).isEqualTo(10_100);
  }

  @Test
  @Order(4)
  void anotherMasterLeadsWhenTheLeaderIsStopped() {
    int leader = cluster.leaderMasterIndex();
    assertThat(leader).as("a leader master").isNotNegative();
    cluster.getMaster(leader).stop();
    await().atMost(Duration.ofMinutes(2))
        .until(() -> cluster.leaderMasterIndex() >= 0 && cluster.leaderMasterIndex() != leader);
    await().atMost(Duration.ofMinutes(2)).ignoreExceptions().untilAsserted(() ->
        client.createTable("after_failover", SCHEMA,
            new CreateTableOptions().addHashPartitions(List.of("id"), 2).setNumReplicas(1)));
    NyalaTable t = client.openTable("rows");
    await().atMost(Duration.ofMinutes(2)).ignoreExceptions()
        .untilAsserted(() -> write(t, 10_100, 10_200));
    assertThat(count(t)).isEqualTo(10_200);
  }

  /** Upserts rows [from, to) in batches; fails on the first row error. */
  private static void write(NyalaTable t, long from, long to) {
    NyalaSession session = client.newSession();
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    for (long i = from; i < to; i++) {
      Operation op = t.newUpsert();
      op.getRow().addLong("id", i).addString("v", "row-" + i);
      session.apply(op);
      if (session.countBufferedOperations() == 500 || i == to - 1) {
        for (OperationResponse r : session.flush()) {
          assertThat(r.hasRowError()).as("%s", r.getRowError()).isFalse();
        }
      }
    }
    session.close();
  }

  private static long count(NyalaTable t) {
    long n = 0;
    for (RowResult r : client.newScannerBuilder(t).build()) {
      assertThat(r.getString("v")).isEqualTo("row-" + r.getLong("id"));
      n++;
    }
    return n;
  }
}
