package com.example.nyala;

import io.nyala.client.*;
import io.nyala.common.schema.*;
import java.util.List;

/**
 * The README's client example: connects, creates table {@code people} (hash-partitioned by id
 * within one range partition per year), inserts ten rows, prints them and the client's count of
 * rows written. Run it against {@code bin/nyala local-cluster} with the printed
 * {@code MASTERS=} addresses as the argument and its {@code export} line pasted: the cluster
 * requires TLS and a user, which the file {@code NYALA_CLIENT_CONFIG} names holds.
 */
public final class App {
  private App() {}

  public static void main(String[] args) {
    run(args.length > 0 ? args[0] : "127.0.0.1:7051");
  }

  /** The body is the README's "A client in 30 lines" block; a test keeps them equal. */
  public static void run(String masters) {
    // NYALA_CLIENT_CONFIG names the cluster's CA and user (local-cluster prints its export line)
    try (NyalaClient client = NyalaClient.builder(masters).clientConfigFromEnvironment()
        .build()) {
      Schema schema = Schema.forTable(List.of(
          ColumnSchema.builder("id", Type.INT64).key(true).build(),
          ColumnSchema.builder("year", Type.INT32).key(true).build(),
          ColumnSchema.builder("name", Type.STRING).build()));
      CreateTableOptions options = new CreateTableOptions().setNumReplicas(3)
          .addHashPartitions(List.of("id"), 2)                // 2 hash buckets by id ...
          .setRangePartitionColumns(List.of("year"));         // ... times one range per year
      for (int year = 2024; year < 2027; year++) {
        options.addRangePartition(schema.newPartialRow().addInt("year", year),
            schema.newPartialRow().addInt("year", year + 1));
      }
      NyalaTable table = client.createTable("people", schema, options);
      NyalaSession session = client.newSession();          // AUTO_FLUSH_SYNC by default
      for (long i = 0; i < 10; i++) {
        Operation insert = table.newInsert();
        insert.getRow().addLong("id", i).addInt("year", 2024 + (int) (i % 3))
            .addString("name", "person-" + i);
        session.apply(insert);
      }
      session.close();
      for (RowResult row : client.newScannerBuilder(table).build()) {
        System.out.println(row.getLong("id") + " " + row.getInt("year") + " "
          + row.getString("name"));
      }
      System.out.println(client.getStatistics().writeOpsAcknowledged() + " rows written");
    }
  }
}
