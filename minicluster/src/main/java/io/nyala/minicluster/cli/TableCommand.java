package io.nyala.minicluster.cli;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaTable;
import io.nyala.client.RowResult;
import io.nyala.client.RowResultIterator;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code nyala table list|count|scan|alter}. */
@Command(name = "table", mixinStandardHelpOptions = true, description = "Table tools.",
    subcommands = {TableCommand.ListCommand.class, TableCommand.CountCommand.class,
        TableCommand.ScanCommand.class, TableAlterCommand.class, TableCreateCommand.class,
        TableDeleteCommand.class, TableDescribeCommand.class})
final class TableCommand implements Runnable {
  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the tables.")
  static final class ListCommand implements Callable<Integer> {
    @Mixin MastersOption masters;

    @Override
    public Integer call() {
      try (NyalaClient client = masters.clientBuilder().build()) {
        List<String> names = new ArrayList<>(client.listTables());
        names.sort(null);
        names.forEach(System.out::println);
      }
      return 0;
    }
  }

  @Command(name = "count", mixinStandardHelpOptions = true,
      description = "Counts a table's rows; the last line is the count alone.")
  static final class CountCommand implements Callable<Integer> {
    @Mixin MastersOption masters;

    @Parameters(index = "0", description = "Table name.")
    String table;

    @Override
    public Integer call() {
      try (NyalaClient client = masters.clientBuilder().build()) {
        NyalaTable t = client.openTable(table);
        Schema s = t.getSchema();
        List<String> keyOnly = new ArrayList<>();
        for (ColumnSchema c : s.keyColumns()) {
          keyOnly.add(c.name());
        }
        AtomicLong n = new AtomicLong();
        long t0 = System.nanoTime();
        try (Progress p = new Progress(System.err, "count", 0, n::get)) {
          NyalaScanner scanner = client.newScannerBuilder(t)
              .setProjectedColumnNames(keyOnly.subList(0, 1)).build();
          while (scanner.hasMoreRows()) {
            RowResultIterator it = scanner.nextRows();
            n.addAndGet(it.getNumRows());
          }
          scanner.close();
        }
        System.err.printf("counted %d rows of '%s' in %.2f s%n", n.get(), table,
            Progress.secondsSince(t0));
        System.out.println(n.get());
      }
      return 0;
    }
  }

  @Command(name = "scan", mixinStandardHelpOptions = true,
      description = "Prints a table's rows, tab-separated, with a header line.")
  static final class ScanCommand implements Callable<Integer> {
    @Mixin MastersOption masters;

    @Parameters(index = "0", description = "Table name.")
    String table;

    @Option(names = "--columns", split = ",", description = "Columns to print (default all).")
    List<String> columns = new ArrayList<>();

    @Option(names = "--limit", defaultValue = "0",
        description = "At most this many rows (0 = all).")
    long limit;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      CliErrors.requireAtLeast(spec, "--limit", limit, 0);
      try (NyalaClient client = masters.clientBuilder().build()) {
        NyalaTable t = client.openTable(table);
        Schema projection = t.getSchema().project(columns);
        List<String> names = new ArrayList<>();
        projection.columns().forEach(c -> names.add(c.name()));
        var b = client.newScannerBuilder(t).setProjectedColumnNames(names);
        if (limit > 0) {
          b.limit(limit);
        }
        NyalaScanner scanner = b.build();
        StringBuilder out = new StringBuilder(String.join("\t", names)).append('\n');
        long n = 0;
        while (scanner.hasMoreRows()) {
          for (RowResult r : scanner.nextRows()) {
            for (int i = 0; i < names.size(); i++) {
              if (i > 0) {
                out.append('\t');
              }
              Object v = r.isNull(i) ? "NULL" : r.getObject(i);
              out.append(v instanceof byte[] bs ? Arrays.toString(bs)
                  : v instanceof BigDecimal d ? d.toPlainString() : String.valueOf(v));
            }
            out.append('\n');
            n++;
            if (out.length() > 1 << 16) {
              System.out.print(out);
              out.setLength(0);
            }
          }
        }
        scanner.close();
        System.out.print(out);
        System.err.printf("%d rows%n", n);
      }
      return 0;
    }
  }
}
