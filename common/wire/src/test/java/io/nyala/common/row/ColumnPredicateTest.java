package io.nyala.common.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Kudu's factory names build the same predicates as Nyala's own. */
@Timeout(10)
class ColumnPredicateTest {
  private static final ColumnSchema TS =
      ColumnSchema.builder("ts", Type.UNIXTIME_MICROS).key(true).build();

  @Test
  void kuduNamesBuildTheSamePredicates() {
    assertThat(ColumnPredicate.newComparisonPredicate(TS, ColumnPredicate.Op.GREATER, 5L))
        .isEqualTo(ColumnPredicate.comparison("ts", ColumnPredicate.Op.GREATER, 5L));
    assertThat(ColumnPredicate.newInListPredicate(TS, List.of(1L, 2L)))
        .isEqualTo(ColumnPredicate.inList("ts", List.of(1L, 2L)));
    assertThat(ColumnPredicate.newIsNullPredicate(TS)).isEqualTo(ColumnPredicate.isNull("ts"));
    assertThat(ColumnPredicate.newIsNotNullPredicate(TS))
        .isEqualTo(ColumnPredicate.isNotNull("ts"));
  }

  @Test
  void kuduNamesRejectWhatNyalasReject() {
    assertThatThrownBy(() -> ColumnPredicate.newComparisonPredicate(
        TS, ColumnPredicate.Op.IN_LIST, 5L))
        .isInstanceOf(NyalaException.class).hasMessageContaining("IN_LIST is not a comparison");
    assertThatThrownBy(() -> ColumnPredicate.newComparisonPredicate(
        TS, ColumnPredicate.Op.EQUAL, null))
        .isInstanceOf(NyalaException.class).hasMessageContaining("column 'ts'");
  }
}
