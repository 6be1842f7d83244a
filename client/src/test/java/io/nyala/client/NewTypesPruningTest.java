package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.partition.RangeBounds;
import io.nyala.common.partition.RangeSchema;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.ColumnPredicate.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Range pruning on DATE and TIMESTAMP range columns, as tight as on integers. */
@Timeout(10)
class NewTypesPruningTest {
  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("day", Type.DATE).key(true).build(),
      ColumnSchema.builder("at", Type.TIMESTAMP).key(true).build(),
      ColumnSchema.builder("amount", Type.DECIMAL).key(true).precision(6).scale(2).build()));
  private static final LocalDate JAN1 = LocalDate.of(1970, 1, 1);

  private static RangeBounds days(RangeSchema rs, LocalDate from, LocalDate to) {
    return new RangeBounds(
        rs.encodeBound(SCHEMA.newPartialRow().addDate("day", from).addTimestamp("at",
            Instant.EPOCH), "lower"),
        rs.encodeBound(SCHEMA.newPartialRow().addDate("day", to).addTimestamp("at",
            Instant.EPOCH), "upper"));
  }

  private static RangePruning prune(RangeSchema rs, ColumnPredicate... ps) {
    return RangePruning.create(rs, List.of(ps).stream().map(p -> p.bind(SCHEMA)).toList());
  }

  @Test
  void dateRangesArePrunedExactlyAtTheirBoundsEvenWithMoreRangeColumns() {
    RangeSchema rs = new RangeSchema(List.of("day", "at"), SCHEMA);
    RangeBounds dec = days(rs, LocalDate.of(1969, 12, 1), JAN1);
    RangeBounds jan = days(rs, JAN1, LocalDate.of(1970, 2, 1));
    RangePruning before = prune(rs, ColumnPredicate.comparison("day", Op.LESS, JAN1));
    assertThat(before.excludes(dec)).isFalse();
    assertThat(before.excludes(jan)).isTrue();
    // The December range ends at (Jan 1, epoch): it holds Jan 1 rows of earlier instants.
    RangePruning after = prune(rs,
        ColumnPredicate.comparison("day", Op.GREATER, JAN1));
    assertThat(after.excludes(dec)).isTrue();
    assertThat(after.excludes(jan)).isFalse();
    RangePruning in = prune(rs,
        ColumnPredicate.inList("day", List.of(JAN1.plusDays(1), JAN1.plusDays(3))));
    assertThat(in.excludes(dec)).isTrue();
    assertThat(in.excludes(jan)).isFalse();
  }

  @Test
  void timestampAndDecimalRangesPrune() {
    RangeSchema ts = new RangeSchema(List.of("at"), SCHEMA);
    Instant t = Instant.parse("1969-12-31T23:59:59.999999Z");
    RangeBounds upToT = new RangeBounds(new byte[0],
        ts.encodeBound(SCHEMA.newPartialRow().addTimestamp("at", t), "upper"));
    assertThat(prune(ts, ColumnPredicate.comparison("at", Op.GREATER_EQUAL, t)).excludes(upToT))
        .isTrue();
    assertThat(prune(ts, ColumnPredicate.comparison("at", Op.LESS_EQUAL, t)).excludes(upToT))
        .isFalse();
    RangeSchema dec = new RangeSchema(List.of("amount"), SCHEMA);
    RangeBounds negative = new RangeBounds(new byte[0],
        dec.encodeBound(SCHEMA.newPartialRow().addDecimal("amount", BigDecimal.ZERO), "upper"));
    assertThat(prune(dec, ColumnPredicate.comparison("amount", Op.GREATER, new BigDecimal("-0.02")))
        .excludes(negative)).isFalse();
    assertThat(prune(dec, ColumnPredicate.comparison("amount", Op.GREATER_EQUAL, 0L))
        .excludes(negative)).isTrue();
  }
}
