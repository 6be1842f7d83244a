package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code nyala table create|describe|delete} against one minicluster of 3 tablet servers. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TableDdlCommandTest {
  private static final String VALID_TYPES = "valid types: int8, int16, int32, int64, bool, "
      + "float, double, string, binary, unixtime_micros, decimal(p,s), date, varchar(n), "
      + "timestamp";

  private static MiniCluster cluster;
  /** The cluster's client config file: masters, CA and user (TLS and authentication on). */
  private static String config;

  @BeforeAll
  static void startCluster() {
    cluster = MiniCluster.builder().numMasters(1).numTabletServers(3).build();
    config = cluster.clientConfigFile().toString();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void createDescribeWriteCountDelete() {
    CliRun create = CliRun.nyala("table", "create", "people", "--client-config", config,
        "--schema", "id:int64 key, name:string, score:double null");
    assertThat(create.status()).as(create.err()).isZero();
    assertThat(create.out())
        .isEqualTo("created table 'people': 3 columns, 2 tablets, 3 replicas each\n");

    // The master learns each tablet's leader from heartbeats, shortly after the create.
    Set<String> tservers = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      tservers.add(cluster.tabletServer(i).uuid());
    }
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      CliRun d = CliRun.nyala("table", "describe", "people", "--client-config", config);
      assertThat(d.status()).as(d.err()).isZero();
      List<String> lines = d.out().lines().toList();
      assertThat(lines.get(0)).startsWith("table 'people' (id ")
          .endsWith("): 3 columns, 2 tablets, 3 replicas each");
      assertThat(section(lines, "columns:")).containsExactly(
          List.of("NAME", "TYPE", "KEY", "NULLABLE", "DEFAULT"),
          List.of("id", "int64", "key", "not null", "-"),
          List.of("name", "string", "-", "not null", "-"),
          List.of("score", "double", "-", "null", "-"));
      assertThat(lines).contains("partitioning: hash(id) into 2 buckets");
      List<List<String>> tablets = section(lines, "tablets:");
      assertThat(tablets.get(0)).containsExactly("TABLET", "PARTITION", "ROLE", "TSERVER", "RPC",
          "UUID");
      Map<String, List<List<String>>> byTablet = new LinkedHashMap<>();
      for (List<String> r : tablets.subList(1, tablets.size())) {
        byTablet.computeIfAbsent(r.get(0), k -> new ArrayList<>()).add(r);
      }
      assertThat(byTablet).hasSize(2);
      Set<String> partitions = new HashSet<>();
      byTablet.forEach((id, replicas) -> {
        assertThat(replicas).as(id).hasSize(3);
        assertThat(replicas.stream().filter(r -> r.get(2).equals("LEADER"))).as(id).hasSize(1);
        assertThat(replicas.stream().map(r -> r.get(5))).as(id)
            .containsExactlyInAnyOrderElementsOf(tservers);
        assertThat(replicas).allSatisfy(r -> assertThat(r.get(4)).isEqualTo(
            cluster.tabletServer(cluster.tabletServerIndex(r.get(5))).rpcAddress().toString()));
        partitions.add(replicas.get(0).get(1));
      });
      assertThat(partitions).containsExactlyInAnyOrder("bucket 0", "bucket 1");
      assertThat(d.out()).doesNotContain("no leader");
    });

    try (NyalaClient client = cluster.clientBuilder().build()) {
      NyalaTable t = client.openTable("people");
      NyalaSession session = client.newSession();
      for (long id = 0; id < 5; id++) {
        Operation op = t.newInsert();
        op.getRow().addLong("id", id).addString("name", "p" + id);
        if (id % 2 == 0) {
          op.getRow().addDouble("score", id * 1.5);
        }
        OperationResponse r = session.apply(op);
        assertThat(r.hasRowError()).as(String.valueOf(r)).isFalse();
      }
      session.close();
    }
    CliRun count = CliRun.nyala("table", "count", "people", "--client-config", config);
    assertThat(count.status()).as(count.err()).isZero();
    assertThat(count.out().strip()).isEqualTo("5");

    CliRun delete = CliRun.nyala("table", "delete", "people", "--client-config", config);
    assertThat(delete.status()).as(delete.err()).isZero();
    assertThat(delete.out()).isEqualTo("deleted table 'people'\n");
    CliRun list = CliRun.nyala("table", "list", "--client-config", config);
    assertThat(list.status()).isZero();
    assertThat(list.out().lines()).doesNotContain("people");
  }

  @Test
  void newTypesAreDescribedAndPrintedAsWritten() {
    CliRun create = CliRun.nyala("table", "create", "ledger", "--client-config", config, "--schema",
        "day:date key, amount:decimal(10,2) key, code:varchar(8), at:timestamp null");
    assertThat(create.status()).as(create.err()).isZero();
    CliRun d = CliRun.nyala("table", "describe", "ledger", "--client-config", config);
    assertThat(d.status()).as(d.err()).isZero();
    assertThat(section(d.out().lines().toList(), "columns:")).containsExactly(
        List.of("NAME", "TYPE", "KEY", "NULLABLE", "DEFAULT"),
        List.of("day", "date", "key", "not null", "-"),
        List.of("amount", "decimal(10,2)", "key", "not null", "-"),
        List.of("code", "varchar(8)", "-", "not null", "-"),
        List.of("at", "timestamp", "-", "null", "-"));
    try (NyalaClient client = cluster.clientBuilder().build()) {
      Operation op = client.openTable("ledger").newInsert();
      op.getRow().addDate("day", LocalDate.of(1969, 7, 20))
          .addDecimal("amount", new BigDecimal("-1234.5"))
          .addVarchar("code", "apollo").addTimestamp("at", Instant.parse(
              "1969-07-20T20:17:40.000001Z"));
      OperationResponse r = client.newSession().apply(op);
      assertThat(r.hasRowError()).as(String.valueOf(r)).isFalse();
    }
    CliRun scan = CliRun.nyala("table", "scan", "ledger", "--client-config", config);
    assertThat(scan.status()).as(scan.err()).isZero();
    assertThat(scan.out()).isEqualTo("day\tamount\tcode\tat\n"
        + "1969-07-20\t-1234.50\tapollo\t1969-07-20T20:17:40.000001Z\n");
    CliRun delete = CliRun.nyala("table", "delete", "ledger", "--client-config", config);
    assertThat(delete.status()).as(delete.err()).isZero();
  }

  @Test
  void describeShowsRangePartitionsAndEachTabletsRange() {
    Schema schema = new Schema(List.of(
        ColumnSchema.builder("day", Type.INT64).key(true).build(),
        ColumnSchema.builder("id", Type.INT64).key(true).build()));
    try (NyalaClient client = cluster.clientBuilder().build()) {
      client.createTable("daily", schema, new CreateTableOptions()
          .setNumReplicas(1).addHashPartitions(List.of("id"), 2)
          .setRangePartitionColumns(List.of("day"))
          .addRangePartition(schema.newPartialRow().addLong("day", 1),
              schema.newPartialRow().addLong("day", 2))
          .addRangePartition(schema.newPartialRow().addLong("day", 2),
              schema.newPartialRow()));
    }
    CliRun d = CliRun.nyala("table", "describe", "daily", "--client-config", config);
    assertThat(d.status()).as(d.err()).isZero();
    List<String> lines = d.out().lines().toList();
    assertThat(lines).contains("partitioning: hash(id) into 2 buckets x range(day) in 2 ranges");
    assertThat(section(lines, "range partitions:")).containsExactly(
        List.of("[(day=1), (day=2))"), List.of("[(day=2), unbounded)"));
    List<List<String>> tablets = section(lines, "tablets:");
    assertThat(tablets.subList(1, tablets.size()).stream().map(r -> r.get(1)))
        .containsExactly("bucket 0 range [(day=1), (day=2))",
            "bucket 0 range [(day=2), unbounded)", "bucket 1 range [(day=1), (day=2))",
            "bucket 1 range [(day=2), unbounded)");
    assertThat(CliRun.nyala("table", "delete", "daily", "--client-config", config).status())
        .isZero();
  }

  @Test
  void optionsSetBucketsHashColumnsAndReplicas() {
    CliRun create = CliRun.nyala("table", "create", "events", "--client-config", config,
        "--schema", "host:string key, ts:unixtime_micros key, v:int32 null",
        "--hash-buckets", "3", "--hash-columns", "host", "--replicas", "1");
    assertThat(create.status()).as(create.err()).isZero();
    assertThat(create.out())
        .isEqualTo("created table 'events': 3 columns, 3 tablets, 1 replica each\n");
    CliRun d = CliRun.nyala("table", "describe", "events", "--client-config", config);
    assertThat(d.out()).contains("partitioning: hash(host) into 3 buckets");
    assertThat(CliRun.nyala("table", "delete", "events", "--client-config", config).status())
        .isZero();
  }

  @Test
  void unknownTypeListsTheValidOnes() {
    CliRun r = CliRun.nyala("table", "create", "t1", "--client-config", config,
        "--schema", "id:int64 key, name:text");
    assertOneLineError(r, "--schema column 'name:text': unknown type 'text' ("
        + VALID_TYPES + ")");
  }

  @Test
  void unknownHashColumnListsTheColumns() {
    CliRun r = CliRun.nyala("table", "create", "t2", "--client-config", config,
        "--schema", "id:int64 key, name:string", "--hash-columns", "nme");
    assertOneLineError(r, "--hash-columns: unknown column 'nme' (columns: id, name; "
        + "key columns: id)");
    CliRun nonKey = CliRun.nyala("table", "create", "t2", "--client-config", config,
        "--schema", "id:int64 key, name:string", "--hash-columns", "name");
    assertOneLineError(nonKey,
        "--hash-columns: 'name' is not a key column (key columns: id)");
  }

  @Test
  void creatingATableTwiceFails() {
    String[] args = {"table", "create", "dup", "--client-config", config, "--schema", "k:int32 key",
        "--hash-buckets", "1"};
    CliRun first = CliRun.nyala(args);
    assertThat(first.status()).as(first.err()).isZero();
    assertThat(first.out())
        .isEqualTo("created table 'dup': 1 column, 1 tablet, 3 replicas each\n");
    assertOneLineError(CliRun.nyala(args), "table 'dup' already exists");
    assertThat(CliRun.nyala("table", "delete", "dup", "--client-config", config).status()).isZero();
  }

  @Test
  void deletingAMissingTableFails() {
    CliRun r = CliRun.nyala("table", "delete", "no_such_table", "--client-config", config);
    assertThat(r.status()).isEqualTo(1);
    assertOneLineError(r, "table 'no_such_table' not found");
    assertOneLineError(
        CliRun.nyala("table", "describe", "no_such_table", "--client-config", config),
        "table 'no_such_table' not found");
  }

  @Test
  void helpShowsTheDefaults() {
    CliRun r = CliRun.nyala("table", "create", "--help");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("--hash-buckets", "Default: 2", "--replicas", "Default: 0",
        "--schema 'id:int64 key, name:string, score:double null'")
        .doesNotContain("Default: []");
    // --schema's help spells the types out; it must keep up with Type.
    // (Picocli may wrap a line before a type's parameters: "varchar\n (n)".)
    assertThat(r.out().replaceAll("\\s+", " ").replace(" (", "("))
        .contains("types: " + ColumnTypes.valid() + ".");
  }

  @Test
  void schemaSpecsParse() {
    Schema s = TableCreateCommand.schema(" name:STRING, id:int64 KEY , score:double null,"
        + "ts:unixtime_micros key");
    assertThat(s.columns()).containsExactly(
        ColumnSchema.builder("id", Type.INT64).key(true).build(),
        ColumnSchema.builder("ts", Type.UNIXTIME_MICROS).key(true).build(),
        ColumnSchema.builder("name", Type.STRING).nullable(false).build(),
        ColumnSchema.builder("score", Type.DOUBLE).nullable(true).build());
    assertThat(TableCreateCommand.hashColumns(s, List.of())).containsExactly("id", "ts");

    Schema typed = TableCreateCommand.schema("day:date key, amount:decimal(10, 2) key,"
        + " code:VARCHAR(20), at:timestamp null");
    assertThat(typed.columns()).extracting(ColumnSchema::typeName)
        .containsExactly("date", "decimal(10,2)", "varchar(20)", "timestamp");
  }

  @Test
  void badSpecsSayWhichPartIsWrong() {
    assertInvalidSpec("id:int64 key,,x:int32", "--schema 'id:int64 key,,x:int32': column 2 of "
        + "3 is empty");
    assertInvalidSpec("id int64 key", "--schema column 'id int64 key': expected name:type "
        + "[key] [null]");
    assertInvalidSpec("id:int64 primary", "--schema column 'id:int64 primary': unknown flag "
        + "'primary' (valid flags: key, null)");
    assertInvalidSpec("id:int64 key null", "--schema column 'id:int64 key null': a key column "
        + "cannot be null");
    assertInvalidSpec("id:double key", "--schema column 'id:double key': a double column cannot "
        + "be a key column");
    assertInvalidSpec("id:int64", "--schema 'id:int64': no key column");
    assertInvalidSpec("id:int64 key, id:string", "duplicate column name 'id'");
    assertInvalidSpec("id:text key", "unknown type 'text' (" + VALID_TYPES + ")");
    assertInvalidSpec("id:varchar key", "column 'id' of type VARCHAR needs a maximum length");
    assertInvalidSpec("id:decimal(10) key", "--schema column 'id:decimal(10) key': type "
        + "'decimal(10)' takes (precision,scale), e.g. decimal(10,2)");
    assertInvalidSpec("id:int64 key, v:varchar(0)", "column 'v': VARCHAR length 0 is not in "
        + "1..65535");
  }

  private static void assertInvalidSpec(String spec, String fragment) {
    assertThatThrownBy(() -> TableCreateCommand.schema(spec))
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains(fragment);
        });
  }

  /**
   * The command failed with one line on stderr, no stack trace: {@code error: }, the status
   * code's name perhaps, then {@code message}.
   */
  private static void assertOneLineError(CliRun r, String message) {
    assertThat(r.status()).as(r.out()).isNotZero();
    assertThat(r.err().lines()).as(r.err()).singleElement()
        .satisfies(l -> assertThat(l).startsWith("error: ").endsWith(message));
    assertThat(r.out()).isEmpty();
  }

  /** The rows under {@code title} up to the next blank line, split on runs of 2+ spaces. */
  private static List<List<String>> section(List<String> lines, String title) {
    int i = lines.indexOf(title);
    assertThat(i).as("section '%s' in %s", title, lines).isNotNegative();
    List<List<String>> rows = new ArrayList<>();
    for (int j = i + 1; j < lines.size() && lines.get(j).startsWith("  "); j++) {
      rows.add(Arrays.asList(lines.get(j).strip().split("\\s{2,}")));
    }
    return rows;
  }
}
