package com.example.nyala;

import io.nyala.client.*;
import io.nyala.common.schema.*;
import java.util.List;

/**
 * The README's client example: connects, creates table {@code people}, inserts ten rows and
 * prints them. Run it against {@code bin/nyala local-cluster} with the printed
 * {@code MASTERS=} addresses as the argument.
 */
public final class App {
  private App() {}

  public static void main(String[] args) {
    run(args.length > 0 ? args[0] : "127.0.0.1:7051");
  }

  /** The body is the README's "A client in 20 lines" block; a test keeps them equal. */
  public static void run(String masters) {
    try (NyalaClient client = NyalaClient.builder(masters).build()) {
      Schema schema = Schema.forTable(List.of(
          ColumnSchema.builder("id", Type.INT64).key(true).build(),
          ColumnSchema.builder("name", Type.STRING).build()));
      NyalaTable table = client.createTable("people", schema,
          new CreateTableOptions().addHashPartitions(List.of("id"), 3).setNumReplicas(3));
      NyalaSession session = client.newSession();          // AUTO_FLUSH_SYNC by default
      for (long i = 0; i < 10; i++) {
        Operation insert = table.newInsert();
        insert.getRow().addLong("id", i).addString("name", "person-" + i);
        session.apply(insert);
      }
      session.close();
      for (RowResult row : client.newScannerBuilder(table).build()) {
        System.out.println(row.getLong("id") + " " + row.getString("name"));
      }
    }
  }
}
