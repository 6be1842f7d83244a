package io.nyala.minicluster.cli;

import io.nyala.client.NyalaClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code nyala table delete NAME}: deletes a table and its data. */
@Command(name = "delete", mixinStandardHelpOptions = true,
    description = "Deletes a table and its data; a missing table is an error (exit 1).")
final class TableDeleteCommand implements Callable<Integer> {
  @Mixin MastersOption masters;

  @Parameters(index = "0", description = "Table name.")
  String table;

  @Override
  public Integer call() {
    try (NyalaClient client = masters.clientBuilder().build()) {
      client.deleteTable(table); // NOT_FOUND "table 'x' not found" reaches the CLI's handler
      System.out.printf("deleted table '%s'%n", table);
    }
    return 0;
  }
}
