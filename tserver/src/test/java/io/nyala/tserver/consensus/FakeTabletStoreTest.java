package io.nyala.tserver.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.StatusCode;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.tablet.RowOpError;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fake keeps the {@code TabletStore} contract the state machine's tests rely on. */
@Timeout(10)
class FakeTabletStoreTest {
  static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("id", Type.INT32).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));

  static RowOperations.Op op(RowOpType type, int id) {
    return new RowOperations.Op(type, SCHEMA.newPartialRow().addInt("id", id)
        .addString("v", "value-" + id));
  }

  @Test
  void rowSemanticsReportPerRowErrorsByPosition() {
    FakeTabletStore s = new FakeTabletStore(SCHEMA);
    assertThat(s.apply(SCHEMA, List.of(op(RowOpType.INSERT, 1), op(RowOpType.UPSERT, 2)), 1))
        .isEmpty();
    List<RowOpError> errors = s.apply(SCHEMA, List.of(op(RowOpType.INSERT, 1),
        op(RowOpType.UPDATE, 3), op(RowOpType.DELETE_IGNORE, 4), op(RowOpType.DELETE, 2),
        op(RowOpType.INSERT_IGNORE, 1)), 2);

    assertThat(errors).extracting(RowOpError::rowIndex).containsExactly(0, 1);
    assertThat(errors).extracting(e -> e.error().code())
        .containsExactly(StatusCode.ALREADY_PRESENT, StatusCode.NOT_FOUND);
    assertThat(s.rows().keySet()).containsExactly("1");
    assertThat(s.lastAppliedIndex()).isEqualTo(2);
  }

  @Test
  void entriesAtOrBelowTheAppliedIndexAreIgnored() {
    FakeTabletStore s = FakeTabletStore.flushedAt(SCHEMA, 1, 5);
    assertThat(s.apply(SCHEMA, List.of(op(RowOpType.UPDATE, 1)), 5)).isEmpty();
    s.alterSchema(SCHEMA.withVersion(SCHEMA.version() + 1), 4);

    assertThat(s.rows()).isEmpty();
    assertThat(s.schema().version()).isEqualTo(SCHEMA.version());
  }

  @Test
  void flushMakesTheAppliedStateDurableAndRunsTheHookOnlyWhenItWroteSomething() {
    FakeTabletStore s = new FakeTabletStore(SCHEMA);
    AtomicInteger hooks = new AtomicInteger();
    s.onFlushed(hooks::incrementAndGet);
    s.apply(SCHEMA, List.of(op(RowOpType.INSERT, 1)), 3);
    s.markApplied(2, 3);

    assertThat(s.flush()).isTrue();
    assertThat(s.flush()).isFalse();
    assertThat(s.durableIndex()).isEqualTo(3);
    assertThat(s.durableTerm()).isEqualTo(2);
    assertThat(hooks).hasValue(1);
  }
}
