package io.nyala.itests;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.RowResult;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application that embeds only {@code nyala-client} and logs with Logback: the main class of
 * {@link LogbackClientIT}'s child JVM. Argument: the master addresses; the CA and user come
 * from the client config file {@code NYALA_CLIENT_CONFIG} names. Prints
 * {@code rows=N} on stdout when done.
 */
public final class LogbackClientApp {
  private static final Logger LOG = LoggerFactory.getLogger(LogbackClientApp.class);

  private LogbackClientApp() {
  }

  public static void main(String[] args) throws Exception {
    LOG.info("logger factory {}", LoggerFactory.getILoggerFactory().getClass().getName());
    try (NyalaClient client = NyalaClient.builder(args[0]).clientConfigFromEnvironment()
        .build()) {
      Schema schema = Schema.forTable(List.of(
          ColumnSchema.builder("id", Type.INT64).key(true).build(),
          ColumnSchema.builder("name", Type.STRING).build()));
      NyalaTable table = client.createTable("logback_people", schema,
          new CreateTableOptions().addHashPartitions(List.of("id"), 2).setNumReplicas(1));
      NyalaSession session = client.newSession();
      for (long i = 0; i < 10; i++) {
        Operation insert = table.newInsert();
        insert.getRow().addLong("id", i).addString("name", "person-" + i);
        session.apply(insert);
      }
      session.close();
      long rows = 0;
      for (RowResult row : client.newScannerBuilder(table).build()) {
        rows++;
      }
      LOG.info("scanned {} rows", rows);
      System.out.println("rows=" + rows);
    }
  }
}
