package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.RowResult;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DECIMAL, DATE, VARCHAR and TIMESTAMP end to end (docs/architecture.md, "Column types"): a
 * table ranged by DATE and hashed by DECIMAL, rows written across its ranges, scans with a
 * predicate on each new type counted against the same filter in Java, and values that do not
 * fit (too long a VARCHAR, a DECIMAL of the wrong scale) refused without losing a row.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@NyalaCluster(tservers = 1)
class TypesIT {
  private static final int ROWS = 120;
  private static final LocalDate START = LocalDate.of(1969, 12, 1);
  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("day", Type.DATE).key(true).build(),
      ColumnSchema.builder("amount", Type.DECIMAL).key(true).precision(9).scale(2).build(),
      ColumnSchema.builder("name", Type.VARCHAR).length(6).nullable(false).build(),
      ColumnSchema.builder("at", Type.TIMESTAMP).build()));

  /** One row as the test writes it and expects it back. */
  record Row(LocalDate day, BigDecimal amount, String name, Instant at) {}

  private static Row row(int i) {
    return new Row(START.plusDays(i % 60), BigDecimal.valueOf(i * 137L - 8000, 2), "n" + i,
        i % 7 == 0 ? null : Instant.parse("1969-12-31T23:00:00Z").plusNanos(i * 60_000_001_000L));
  }

  @Test
  void writeRangeHashAndFilterOnEveryNewType(MiniCluster cluster) throws Exception {
    try (NyalaClient client = cluster.clientBuilder()
        .defaultOperationTimeoutMs(60_000).defaultAdminOperationTimeoutMs(60_000).build()) {
      CreateTableOptions o = new CreateTableOptions().setNumReplicas(1)
          .addHashPartitions(List.of("amount"), 2).setRangePartitionColumns(List.of("day"));
      for (int m = 0; m < 2; m++) {
        o.addRangePartition(SCHEMA.newPartialRow().addDate("day", START.plusMonths(m)),
            SCHEMA.newPartialRow().addDate("day", START.plusMonths(m + 1)));
      }
      NyalaTable table = client.createTable("typed", SCHEMA, o);
      List<Row> written = new ArrayList<>();
      try (NyalaSession s = client.newSession()) {
        s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
        for (int i = 0; i < ROWS; i++) {
          Row r = row(i);
          Operation op = table.newInsert();
          op.getRow().addDate("day", r.day()).addDecimal("amount", r.amount())
              .addVarchar("name", r.name()).addTimestamp("at", r.at());
          s.apply(op);
          written.add(r);
        }
        for (OperationResponse resp : s.flush()) {
          assertThat(resp.hasRowError()).as("%s", resp).isFalse();
        }
      }
      assertThat(scan(client, table)).containsExactlyInAnyOrderElementsOf(written);

      checkFilter(client, table, written, r -> r.day().isBefore(LocalDate.of(1970, 1, 1)),
          ColumnPredicate.comparison("day", ColumnPredicate.Op.LESS, LocalDate.of(1970, 1, 1)));
      checkFilter(client, table, written, r -> r.amount().signum() < 0,
          ColumnPredicate.comparison("amount", ColumnPredicate.Op.LESS, BigDecimal.ZERO));
      List<BigDecimal> some = List.of(row(3).amount(), row(77).amount(), new BigDecimal("1.5"));
      checkFilter(client, table, written, r -> some.stream().anyMatch(
          d -> d.compareTo(r.amount()) == 0), ColumnPredicate.inList("amount", some));
      checkFilter(client, table, written, r -> r.name().compareTo("n5") >= 0,
          ColumnPredicate.comparison("name", ColumnPredicate.Op.GREATER_EQUAL, "n5"));
      Instant cut = Instant.parse("1970-01-01T00:30:00.000001Z");
      checkFilter(client, table, written, r -> r.at() != null && r.at().isAfter(cut),
          ColumnPredicate.comparison("at", ColumnPredicate.Op.GREATER, cut));

      rejectsBadValuesAndLosesNothing(client, table, written);
    }
  }

  private static void rejectsBadValuesAndLosesNothing(NyalaClient client, NyalaTable table,
      List<Row> written) {
    PartialRow bad = table.newInsert().getRow().addDate("day", START)
        .addDecimal("amount", new BigDecimal("9.99"));
    assertThatThrownBy(() -> bad.addVarchar("name", "sevenXX"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("column 'name' is 7 characters long; VARCHAR(6) holds at most 6");
    assertThatThrownBy(() -> bad.addDecimal("amount", new BigDecimal("9.999")))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("value 9.999 for column 'amount' has scale 3; DECIMAL(9,2)");
    assertThat(scan(client, table)).containsExactlyInAnyOrderElementsOf(written);
  }

  private static void checkFilter(NyalaClient client, NyalaTable table, List<Row> written,
      Predicate<Row> filter, ColumnPredicate predicate) {
    List<Row> expected = written.stream().filter(filter).toList();
    assertThat(expected).as("the filter for %s selects some rows, not all", predicate)
        .isNotEmpty().hasSizeLessThan(written.size());
    assertThat(scan(client, table, predicate)).as("%s", predicate)
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  private static List<Row> scan(NyalaClient client, NyalaTable table,
      ColumnPredicate... predicates) {
    var b = client.newScannerBuilder(table);
    for (ColumnPredicate p : predicates) {
      b.addPredicate(p);
    }
    List<Row> out = new ArrayList<>();
    try (NyalaScanner s = b.build()) {
      while (s.hasMoreRows()) {
        for (RowResult r : s.nextRows()) {
          out.add(new Row(r.getDate("day"), r.getDecimal("amount"), r.getVarchar("name"),
              r.isNull("at") ? null : r.getTimestamp("at")));
        }
      }
    }
    return out;
  }
}
