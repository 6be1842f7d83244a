package io.nyala.minicluster.cli;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.client.TabletServerInfo;
import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nyala table create NAME --schema SPEC}: creates a hash-partitioned table from a compact
 * schema spec and waits until its tablets exist.
 */
@Command(name = "create", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = {
        "Creates a table, hash-partitioned over its key columns, and waits until its "
            + "tablets exist.",
        "Schema spec: comma-separated columns, each 'name:type' followed by the flags 'key' "
            + "(a primary key column; key columns come first, in the order given) and 'null' "
            + "(nullable; columns are NOT NULL otherwise), e.g.",
        "  --schema 'id:int64 key, name:string, score:double null'"})
final class TableCreateCommand implements Callable<Integer> {
  private static final String SCHEMA = "--schema";
  private static final String HASH_COLUMNS = "--hash-columns";

  @Mixin MastersOption masters;

  @Parameters(index = "0", description = "Table name.")
  String table;

  @Option(names = SCHEMA, required = true, paramLabel = "SPEC",
      description = "Columns: 'name:type [key] [null], ...'; types: int8, int16, int32, int64, "
          + "bool, float, double, string, binary, unixtime_micros, decimal(p,s), date, "
          + "varchar(n), timestamp.")
  String schemaSpec;

  @Option(names = "--hash-buckets", defaultValue = "2",
      description = "Hash buckets, one tablet each; 1: a single unpartitioned tablet.")
  int hashBuckets;

  @Option(names = HASH_COLUMNS, split = ",", paramLabel = "COLUMN",
      showDefaultValue = Help.Visibility.NEVER,
      description = "Key columns to hash (default: all key columns).")
  List<String> hashColumns = new ArrayList<>();

  @Option(names = "--replicas", defaultValue = "0",
      description = "Replicas of each tablet; 0: as many as there are live tablet servers, "
          + "at most 3.")
  int replicas;

  @Override
  public Integer call() {
    Schema schema = schema(schemaSpec);
    if (hashBuckets < 1) {
      throw NyalaException.invalidArgument("--hash-buckets must be at least 1, got %d",
          hashBuckets);
    }
    if (replicas < 0) {
      throw NyalaException.invalidArgument("--replicas must not be negative, got %d", replicas);
    }
    List<String> hashed = hashColumns(schema, hashColumns);
    try (NyalaClient client = masters.clientBuilder().build()) {
      int rf = replicas > 0 ? replicas : defaultReplicas(liveTabletServers(client));
      CreateTableOptions o = new CreateTableOptions().setNumReplicas(rf);
      if (hashBuckets > 1) {
        o.addHashPartitions(hashed, hashBuckets);
      }
      NyalaTable t = client.createTable(table, schema, o);
      System.out.printf("created table '%s': %s, %s, %s each%n", t.getName(),
          count(t.getSchema().columnCount(), "column"),
          count(t.getPartitionSchema().numTablets(), "tablet"),
          count(t.getNumReplicas(), "replica"));
    }
    return 0;
  }

  /**
   * Parses a schema spec: {@code name:type [key] [null], ...}. Key columns move to the front in
   * the order given (a table's key columns come first, see {@link Schema}).
   *
   * @throws NyalaException INVALID_ARGUMENT naming the part of the spec that is wrong
   */
  static Schema schema(String spec) {
    if (spec == null || spec.isBlank()) {
      throw NyalaException.invalidArgument("%s is empty: expected 'name:type [key] [null], ...'",
          SCHEMA);
    }
    List<ColumnSchema> keys = new ArrayList<>();
    List<ColumnSchema> others = new ArrayList<>();
    // Commas inside a type's parentheses (decimal(10,2)) do not split columns.
    String[] parts = spec.split(",(?![^(]*\\))", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i].trim();
      if (part.isEmpty()) {
        throw NyalaException.invalidArgument("%s '%s': column %d of %d is empty", SCHEMA, spec,
            i + 1, parts.length);
      }
      ColumnSchema c = column(part);
      (c.key() ? keys : others).add(c);
    }
    if (keys.isEmpty()) {
      throw NyalaException.invalidArgument("%s '%s': no key column; mark the primary key "
          + "columns with 'key', e.g. 'id:int64 key'", SCHEMA, spec);
    }
    List<ColumnSchema> all = new ArrayList<>(keys);
    all.addAll(others);
    return Schema.forTable(all);
  }

  /** One column of the spec: {@code name:type} and then {@code key} and/or {@code null}. */
  private static ColumnSchema column(String part) {
    // Spaces inside a type's parentheses (decimal(10, 2)) do not separate words.
    String[] words = part.replaceAll("\\s+(?=[^(]*\\))", "").split("\\s+");
    String[] nameType = words[0].split(":", -1);
    if (nameType.length != 2 || nameType[0].isEmpty() || nameType[1].isEmpty()) {
      throw NyalaException.invalidArgument("%s column '%s': expected name:type [key] [null]",
          SCHEMA, part);
    }
    ColumnSchema.Builder b = ColumnTypes.column(SCHEMA + " column", part, nameType[0],
        nameType[1]);
    Type type = ColumnTypes.parse(SCHEMA + " column", part, nameType[1]);
    boolean key = false;
    boolean nullable = false;
    for (int w = 1; w < words.length; w++) {
      switch (words[w].toLowerCase(Locale.ROOT)) {
        case "key" -> key = true;
        case "null" -> nullable = true;
        default -> throw NyalaException.invalidArgument("%s column '%s': unknown flag '%s' "
            + "(valid flags: key, null)", SCHEMA, part, words[w]);
      }
    }
    if (key && nullable) {
      throw NyalaException.invalidArgument("%s column '%s': a key column cannot be null",
          SCHEMA, part);
    }
    if (key && !type.canBeKey()) {
      throw NyalaException.invalidArgument("%s column '%s': a %s column cannot be a key "
          + "column", SCHEMA, part, nameType[1]);
    }
    return b.key(key).nullable(nullable).build();
  }

  /**
   * The columns to hash: {@code given}, or all key columns when it is empty.
   *
   * @throws NyalaException INVALID_ARGUMENT naming the schema's (key) columns when one given is
   *     not a key column
   */
  static List<String> hashColumns(Schema schema, List<String> given) {
    List<String> keyNames = names(schema.keyColumns());
    if (given == null || given.isEmpty()) {
      return keyNames;
    }
    List<String> out = new ArrayList<>();
    for (String raw : given) {
      String c = raw.trim();
      if (!schema.hasColumn(c)) {
        throw NyalaException.invalidArgument("%s: unknown column '%s' (columns: %s; key "
            + "columns: %s)", HASH_COLUMNS, c, String.join(", ", names(schema.columns())),
            String.join(", ", keyNames));
      }
      if (!keyNames.contains(c)) {
        throw NyalaException.invalidArgument("%s: '%s' is not a key column (key columns: %s)",
            HASH_COLUMNS, c, String.join(", ", keyNames));
      }
      if (out.contains(c)) {
        throw NyalaException.invalidArgument("%s: '%s' is given twice", HASH_COLUMNS, c);
      }
      out.add(c);
    }
    return out;
  }

  /** E.g. {@code 1 tablet}, {@code 2 tablets}. */
  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static List<String> names(List<ColumnSchema> columns) {
    return columns.stream().map(ColumnSchema::name).collect(Collectors.toList());
  }

  /** The replication factor {@code perf loadgen} also uses: live tablet servers, 1 to 3. */
  static int defaultReplicas(long liveTabletServers) {
    return (int) Math.max(1, Math.min(3, liveTabletServers));
  }

  /**
   * How many tablet servers the leader master counts as live, asked as {@code perf loadgen}
   * and {@code tserver list} ask it (ListTabletServers).
   */
  static long liveTabletServers(NyalaClient client) {
    return client.listTabletServers().stream().filter(TabletServerInfo::live).count();
  }
}
