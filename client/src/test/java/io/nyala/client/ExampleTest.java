package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.fake.FakeCluster;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README example, against three masters of which the last leads. */
@Timeout(20)
class ExampleTest {
  @Test
  void readmeExample() throws Exception {
    try (FakeCluster cluster = new FakeCluster(3, 3)) {
      cluster.setLeaderMaster(2);
      List<String> seen = new ArrayList<>();

      try (NyalaClient client = NyalaClient.builder(cluster.masterAddresses()).build()) {
        Schema schema = new Schema(List.of(
            ColumnSchema.builder("host", Type.STRING).key(true).build(),
            ColumnSchema.builder("ts", Type.UNIXTIME_MICROS).key(true).build(),
            ColumnSchema.builder("value", Type.DOUBLE).build()));
        NyalaTable table = client.createTable("metrics", schema, new CreateTableOptions()
            .addHashPartitions(List.of("host"), 4).setNumReplicas(3));
        try (NyalaSession session = client.newSession()) {
          for (String host : List.of("a", "b", "c")) {
            Operation insert = table.newInsert();
            insert.getRow().addString("host", host).addTimestampMicros("ts", 1L)
                .addDouble("value", 0.5);
            session.apply(insert);
          }
        }
        try (NyalaScanner scanner = table.newScannerBuilder().build()) {
          for (RowResult row : scanner) {
            seen.add(row.getString("host") + "=" + row.getDouble("value"));
          }
        }
      }

      assertThat(seen).containsExactlyInAnyOrder("a=0.5", "b=0.5", "c=0.5");
    }
  }

  @Test
  void asyncScannerReturnsFuturePages() throws Exception {
    try (ClientFixture f = new ClientFixture(1, 1)) {
      NyalaTable t = f.createTable("m", 2, 1);
      f.insertRange(t, 0, 25);
      AsyncNyalaScanner s = f.client.getAsyncClient().newScannerBuilder(t).batchSizeRows(10)
          .buildAsync();
      int rows = 0;
      while (s.hasMoreRows()) {
        rows += s.nextRows().get(5, TimeUnit.SECONDS).getNumRows();
      }
      assertThat(rows).isEqualTo(25);
      assertThat(s.getRowsReturned()).isEqualTo(25);
      assertThat(s.nextRows().get().getNumRows()).isZero();
    }
  }
}
