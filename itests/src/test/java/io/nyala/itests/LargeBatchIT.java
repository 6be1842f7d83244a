package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.minicluster.NyalaCluster;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A flush much larger than one Raft entry may be (Ratis' appender buffer, 1 MiB) is split by
 * the client into entries that fit, and every row lands on every replica.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@NyalaCluster(lifecycle = NyalaCluster.Lifecycle.SHARED)
class LargeBatchIT {
  @Test
  void aFlushOfSeveralMegabytesIsSplitAndFullyApplied(NyalaClient client) {
    NyalaTable table = client.createTable("big", TestRows.schema(),
        new CreateTableOptions().setNumReplicas(3));
    NyalaSession session = client.newSession();
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.setMutationBufferSpace(10_000);
    String filler = "x".repeat(2000);
    for (long k = 0; k < 3000; k++) {
      Operation op = table.newInsert();
      op.getRow().addLong("key", k).addString("name", filler + k);
      session.apply(op);
    }
    List<OperationResponse> responses = session.flush();
    assertThat(responses).hasSize(3000);
    assertThat(responses.stream().filter(OperationResponse::hasRowError).map(
        r -> r.getRowError().toString()).limit(3).toList()).isEmpty();
    session.close();
    Map<Long, String> rows = new java.util.TreeMap<>();
    for (var r : client.newScannerBuilder(table).setProjectedColumnNames(List.of("key", "name"))
        .build()) {
      rows.put(r.getLong("key"), r.getString("name"));
    }
    assertThat(rows).hasSize(3000);
    assertThat(rows.get(2999L)).isEqualTo(filler + 2999);
  }
}
