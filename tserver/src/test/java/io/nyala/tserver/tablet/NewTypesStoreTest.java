package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** DECIMAL, DATE, VARCHAR and TIMESTAMP columns written, flushed to pages, reopened and read. */
@Timeout(60)
class NewTypesStoreTest {
  static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("day", Type.DATE).key(true).build(),
      ColumnSchema.builder("code", Type.VARCHAR).key(true).length(10).build(),
      ColumnSchema.builder("price", Type.DECIMAL).precision(12).scale(3).nullable(false).build(),
      ColumnSchema.builder("seen", Type.TIMESTAMP).build(),
      ColumnSchema.builder("note", Type.VARCHAR).length(4).defaultValue("n/a").build()));

  @TempDir Path dir;

  private static Op insert(int i) {
    PartialRow r = SCHEMA.newPartialRow()
        .addDate("day", LocalDate.of(1969, 12, 25).plusDays(i))
        .addVarchar("code", "c" + i)
        .addDecimal("price", BigDecimal.valueOf(i * 1001L - 20_000, 3))
        .addTimestamp("seen", i % 5 == 0 ? null : Instant.ofEpochSecond(-3600L + i, i * 1000L));
    return new Op(RowOpType.INSERT, r);
  }

  private static Object[] expected(int i) {
    return new Object[] {LocalDate.of(1969, 12, 25).plusDays(i), "c" + i,
        BigDecimal.valueOf(i * 1001L - 20_000, 3),
        i % 5 == 0 ? null : Instant.ofEpochSecond(-3600L + i, i * 1000L), "n/a"};
  }

  @Test
  void allNewTypesSurviveFlushAndRestartAndFilter() {
    try (StoreFixture fx = StoreFixture.plain(dir, SCHEMA)) {
      List<Op> ops = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        ops.add(insert(i));
      }
      assertThat(fx.apply(SCHEMA, ops)).isEmpty();
      assertThat(fx.store.flush()).isTrue();
      fx.restart();

      List<Object[]> rows = scan(fx, List.of());
      assertThat(rows).hasSize(40);
      for (int i = 0; i < 40; i++) {
        assertThat(rows.get(i)).as("row %d", i).containsExactly(expected(i));
      }
      // Predicates on each new type, against a Java-side count.
      assertThat(scan(fx, List.of(ColumnPredicate.comparison("day", ColumnPredicate.Op.LESS,
          LocalDate.of(1970, 1, 1))))).hasSize(7);
      assertThat(scan(fx, List.of(ColumnPredicate.comparison("price",
          ColumnPredicate.Op.GREATER_EQUAL, new BigDecimal("0"))))).hasSize(20);
      assertThat(scan(fx, List.of(ColumnPredicate.inList("code", List.of("c3", "c33", "zz")))))
          .hasSize(2);
      assertThat(scan(fx, List.of(ColumnPredicate.comparison("seen", ColumnPredicate.Op.GREATER,
          Instant.ofEpochSecond(-3600L + 20, 20_000L))))).hasSize(19 - 3);
    }
  }

  private static List<Object[]> scan(StoreFixture fx, List<ColumnPredicate> predicates) {
    TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of(), predicates, null, null, fx.index);
    return fx.store.scan(spec, null, 1000).rows();
  }
}
