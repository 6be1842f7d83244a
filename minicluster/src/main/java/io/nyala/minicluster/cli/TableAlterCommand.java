package io.nyala.minicluster.cli;

import io.nyala.client.AlterTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code nyala table alter}: rename a table, add, drop and rename columns. */
@Command(name = "alter", mixinStandardHelpOptions = true,
    description = {"Alters a table in one schema change and waits until every tablet has it.",
        "Steps run in this order: add, rename, drop; then the table is renamed."})
final class TableAlterCommand implements Callable<Integer> {
  @Mixin MastersOption masters;

  @Parameters(index = "0", description = "Table name.")
  String table;

  @Option(names = "--rename-to", description = "New table name.")
  String renameTo;

  @Option(names = "--add-column", description = "name:type[:default] (without a default the "
      + "column is nullable), e.g. score:int64:0. Repeatable.")
  List<String> addColumns = new ArrayList<>();

  @Option(names = "--drop-column", description = "Column to drop. Repeatable.")
  List<String> dropColumns = new ArrayList<>();

  @Option(names = "--rename-column", description = "old:new. Repeatable.")
  List<String> renameColumns = new ArrayList<>();

  @Override
  public Integer call() {
    AlterTableOptions o = new AlterTableOptions();
    addColumns.forEach(spec -> o.addColumn(column(spec)));
    for (String spec : renameColumns) {
      String[] p = spec.split(":", -1);
      if (p.length != 2 || p[0].isEmpty() || p[1].isEmpty()) {
        throw NyalaException.invalidArgument("--rename-column '%s': expected old:new", spec);
      }
      o.renameColumn(p[0], p[1]);
    }
    dropColumns.forEach(o::dropColumn);
    if (renameTo != null) {
      o.renameTable(renameTo);
    }
    try (NyalaClient client = masters.clientBuilder().build()) {
      NyalaTable t = client.alterTable(table, o);
      System.out.printf("altered table '%s' (now '%s'): %s%n", table, t.getName(),
          t.getSchema());
    }
    return 0;
  }

  /** {@code name:type[:default]}; the default may itself contain ':'. */
  static ColumnSchema column(String spec) {
    String[] p = spec.split(":", 3);
    if (p.length < 2 || p[0].isEmpty()) {
      throw NyalaException.invalidArgument("--add-column '%s': expected name:type[:default]",
          spec);
    }
    Type type = ColumnTypes.parse("--add-column", spec, p[1]);
    ColumnSchema.Builder b = ColumnTypes.column("--add-column", spec, p[0], p[1]);
    if (p.length == 2) {
      return b.nullable(true).build();
    }
    return b.nullable(false)
        .defaultValue(parse(spec, type, p[2])).build();
  }

  private static Object parse(String spec, Type type, String v) {
    try {
      return switch (type) {
        case INT8, INT16, INT32, INT64, UNIXTIME_MICROS -> Long.parseLong(v);
        case BOOL -> Boolean.parseBoolean(v);
        case FLOAT -> Float.parseFloat(v);
        case DOUBLE -> Double.parseDouble(v);
        case BINARY -> v.getBytes(StandardCharsets.UTF_8);
        case DECIMAL -> new java.math.BigDecimal(v);
        case DATE -> java.time.LocalDate.parse(v);
        case TIMESTAMP -> java.time.Instant.parse(v);
        default -> v;
      };
    } catch (NumberFormatException | java.time.format.DateTimeParseException e) {
      throw NyalaException.invalidArgument("--add-column '%s': default '%s' is not a %s", spec,
          v, type);
    }
  }
}
