package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The whole path on 1 master + 3 tablet servers: a 3-bucket, 3-replica table; 10,000 rows
 * written and scanned back; every server restarted; one tablet server stopped while writes and
 * scans go on. Acknowledged rows are counted, never assumed.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@NyalaCluster(masters = 1, tservers = 3, tserverFlags = "--heartbeat_interval_ms=300")
class EndToEndIT {
  /** Writes keys [from, to) in batches; returns the keys the cluster acknowledged. */
  private static List<Long> write(NyalaClient client, NyalaTable table, long from, long to) {
    NyalaSession session = client.newSession();
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.setMutationBufferSpace(1000);
    List<Long> acked = new ArrayList<>();
    for (long start = from; start < to; start += 500) {
      long end = Math.min(to, start + 500);
      for (long k = start; k < end; k++) {
        Operation op = table.newInsert();
        op.getRow().addLong("key", k).addString("name", TestRows.name(k))
            .addInt("num", TestRows.num(k)).addDouble("dbl", TestRows.dbl(k));
        session.apply(op);
      }
      for (OperationResponse r : session.flush()) {
        if (!r.hasRowError()) {
          acked.add((Long) r.getOperation().getRow().get("key"));
        }
      }
    }
    session.close();
    return acked;
  }

  @Test
  void writeScanRestartAndSurviveALostTabletServer(MiniCluster cluster) {
    NyalaClient client = cluster.newClient();
    NyalaTable table = client.createTable("e2e", TestRows.schema(),
        new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));

    List<Long> acked = write(client, table, 0, 10_000);
    assertThat(acked).hasSize(10_000);
    Map<Long, String> rows = TestRows.scanAll(client, table);
    assertThat(rows).hasSize(10_000);
    for (long k = 0; k < 10_000; k++) {
      assertThat(rows.get(k)).as("row %d", k).isEqualTo(TestRows.expected(k));
    }

    cluster.restart();
    NyalaClient after = cluster.newClient();
    NyalaTable reopened = after.openTable("e2e");
    assertThat(TestRows.scanAll(after, reopened)).isEqualTo(rows);

    cluster.stopTabletServer(0);
    List<Long> ackedWhileDown = write(after, reopened, 10_000, 12_000);
    assertThat(ackedWhileDown).as("writes keep succeeding with one tablet server down")
        .hasSize(2_000);
    Map<Long, String> withOneDown = TestRows.scanAll(after, reopened);
    for (long k : acked) {
      assertThat(withOneDown).containsKey(k);
    }
    for (long k : ackedWhileDown) {
      assertThat(withOneDown.get(k)).as("row %d", k).isEqualTo(TestRows.expected(k));
    }
    assertThat(withOneDown).hasSize(12_000);

    cluster.startTabletServer(0);
    assertThat(TestRows.scanAll(after, reopened)).hasSize(12_000);
  }
}
