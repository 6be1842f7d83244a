package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.ClientStatistics;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.client.TableStatistics;
import io.nyala.client.TabletServerInfo;
import io.nyala.client.TabletStatistics;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import io.nyala.minicluster.ServerInfo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's statistics and cluster introspection against real servers
 * (docs/architecture.md, "Client statistics"): N rows written and scanned count exactly N, a
 * killed tablet leader shows as retries of its tablet and as a dead tablet server, and the table's
 * statistics count the rows its leaders hold, and their bytes once flushed.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClientStatisticsIT {
  private static final int N = 500;
  private static final int TABLETS = 3;

  @Test
  void countsWritesScansRetriesAndServers() {
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
        .numMasters(1).numTabletServers(3).tserverFlag("--heartbeat_interval_ms=300")
        .tserverFlag("--flush_threshold_secs=1")
        .masterFlag("--tserver_unresponsive_timeout_ms=3000").build();
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(60_000).defaultRpcTimeoutMs(3_000).build()) {
      await("3 live tablet servers").atMost(Duration.ofSeconds(60)).until(() ->
          client.listTabletServers().stream().filter(TabletServerInfo::live).count() == 3);
      NyalaTable table = client.createTable("stats", TestRows.schema(), new CreateTableOptions()
          .addHashPartitions(List.of("key"), TABLETS).setNumReplicas(3));

      TestRows.insert(client, table, 0, N);
      ClientStatistics written = client.getStatistics();
      assertThat(written.writeOpsApplied()).isEqualTo(N);
      assertThat(written.writeOpsAcknowledged()).isEqualTo(N);
      assertThat(written.writeRowErrors()).isZero();
      assertThat(written.writeBytesSent()).isPositive();
      assertThat(written.tablets().values().stream().mapToLong(TabletStatistics::ops).sum())
          .isEqualTo(N);

      assertThat(TestRows.scanAll(client, table)).hasSize(N);
      ClientStatistics scanned = client.getStatistics();
      assertThat(scanned.scanRowsReturned()).isEqualTo(N);
      assertThat(scanned.scannersOpened()).isEqualTo(TABLETS);
      assertThat(scanned.scanBytesReturned()).isPositive();
      // Rows in memory count as rows at once; their bytes count once a flush wrote them.
      TableStatistics inMemory = client.getTableStatistics("stats");
      assertThat(inMemory.liveRowCount()).isEqualTo(N);
      assertThat(inMemory.numTablets()).isEqualTo(TABLETS);
      assertThat(inMemory.tabletsCounted()).isEqualTo(TABLETS);
      TableStatistics flushed = await("every tablet flushed").atMost(Duration.ofSeconds(60))
          .until(() -> client.getTableStatistics("stats"), s -> s.onDiskBytes() > 0);
      assertThat(flushed.liveRowCount()).isEqualTo(N);
      System.out.printf("flushed: %s%n", flushed);

      String tablet = cluster.tablets().tabletIds("stats").get(0);
      ServerInfo killed = cluster.tablets().killLeader(tablet);
      TestRows.insert(client, table, N, 2 * N);
      ClientStatistics after = client.getStatistics();
      assertThat(after.writeOpsAcknowledged()).isEqualTo(2 * N);
      assertThat(after.rpcRetries()).isGreaterThan(scanned.rpcRetries());
      assertThat(after.getTabletStatistics(tablet).retries()).isPositive();
      assertThat(after.rpcFailures()).isNotEmpty();
      System.out.printf("after the kill: %s%n", after);

      await("the killed tablet server listed dead").atMost(Duration.ofSeconds(60)).until(
          client::listTabletServers, servers -> servers.stream().filter(TabletServerInfo::live)
              .map(TabletServerInfo::uuid).toList().size() == 2
              && servers.stream().anyMatch(s -> s.uuid().equals(killed.uuid()) && !s.live()));
      assertThat(client.listTabletServers()).hasSize(3);
      await("the table's statistics count the rows written since").atMost(Duration.ofSeconds(60))
          .until(() -> client.getTableStatistics("stats").liveRowCount() == 2 * N);
    }
  }
}
