package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Schema changes: what is allowed, and how the in-memory store's rows follow. */
@Timeout(30)
class SchemaChangeTest {
  private static final ColumnSchema ID =
      ColumnSchema.builder("id", Type.INT32).key(true).build().withId(1);
  private static final ColumnSchema V = ColumnSchema.builder("v", Type.STRING).build().withId(2);
  private static final ColumnSchema C = ColumnSchema.builder("c", Type.INT64).build().withId(3);
  private static final Schema V0 = new Schema(List.of(ID, V, C), 0);

  @Test
  void renamesKeepValuesAddedColumnsReadTheirDefaultDroppedOnesDisappear() {
    ColumnSchema added = ColumnSchema.builder("d", Type.INT32).nullable(false).defaultValue(5)
        .build().withId(4);
    Schema v1 = new Schema(List.of(ID, added, V.withName("label")), 1);
    MemTabletStore store = new MemTabletStore(V0);
    store.apply(V0, List.of(new Op(RowOpType.INSERT,
        V0.newPartialRow().addInt("id", 1).addString("v", "a").addLong("c", 9L))), 1);
    ScanSpec old = ScanSpec.of(V0, List.of(), List.of(), null, null, 1);

    store.alterSchema(v1, 2);
    assertThat(store.schema()).isEqualTo(v1);
    assertThat(store.lastAppliedIndex()).isEqualTo(2);
    assertThat(store.scan(ScanSpec.of(v1, List.of(), List.of(), null, null, 2), null, 10).rows())
        .singleElement().satisfies(r -> assertThat(r).containsExactly(1, 5, "a"));
    assertThatThrownBy(() -> store.scan(old, null, 10))
        .hasMessageContaining("schema changed from version 0 to 1");

    store.alterSchema(V0, 3); // an older version (replay): ignored
    assertThat(store.schema()).isEqualTo(v1);
  }

  @Test
  void keyTypeAndNullabilityChangesAreRefusedNamingTheColumn() {
    assertRefused(new Schema(List.of(ID,
        ColumnSchema.builder("k", Type.INT32).key(true).build().withId(9), V, C), 1), "key");
    assertRefused(new Schema(List.of(ID, V,
        ColumnSchema.builder("c", Type.STRING).build().withId(3)), 1), "'c'");
    assertRefused(new Schema(List.of(ID, V,
        ColumnSchema.builder("c", Type.INT64).nullable(false).build().withId(3)), 1), "'c'");
    assertRefused(new Schema(List.of(ID, V, C,
        ColumnSchema.builder("e", Type.INT32).nullable(false).build().withId(5)), 1), "'e'");
  }

  @Test
  void columnsWithoutIdsMatchByName() {
    Schema a = new Schema(List.of(ColumnSchema.builder("id", Type.INT32).key(true).build(),
        ColumnSchema.builder("v", Type.STRING).build()), 0);
    Schema b = new Schema(List.of(a.column(0), ColumnSchema.builder("w", Type.STRING).build()), 1);
    assertThat(SchemaChange.between(a, b).convert(new Object[] {1, "x"}))
        .containsExactly(1, null);
  }

  private static void assertRefused(Schema to, String naming) {
    assertThatThrownBy(() -> SchemaChange.between(V0, to))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining(naming);
  }
}
