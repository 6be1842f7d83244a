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
import io.nyala.tserver.tablet.rowset.Projection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schema changes: what {@link TabletSchemaChange} allows, and {@code alterSchema} on the block
 * store (rows written under older schemas read through the new one, by column id).
 */
@Timeout(30)
class TabletSchemaChangeTest {
  static final Schema V0 = new Schema(List.of(
      new ColumnSchema("id", Type.INT32, true, false, null, 1),
      new ColumnSchema("a", Type.STRING, false, true, null, 2),
      new ColumnSchema("b", Type.INT64, false, true, null, 3)), 0);
  /** b dropped, a renamed to a2, c added with a default. */
  static final Schema V1 = new Schema(List.of(
      new ColumnSchema("id", Type.INT32, true, false, null, 1),
      new ColumnSchema("a2", Type.STRING, false, true, null, 2),
      new ColumnSchema("c", Type.INT32, false, true, 42, 4)), 1);
  @TempDir Path dir;

  private static List<Object> row(Object... v) {
    List<Object> l = new ArrayList<>();
    for (Object o : v) {
      l.add(o);
    }
    return l;
  }

  private static List<List<Object>> scan(StoreFixture fx) {
    TabletScanSpec spec =
        TabletScanSpec.of(fx.store.schema(), List.of(), List.of(), null, null, fx.index);
    return StoreModel.asLists(fx.store.scan(spec, null, 100).rows());
  }

  @Test
  void addedDroppedAndRenamedColumnsReadThroughTheNewSchemaAcrossFlushAndRestart() {
    try (StoreFixture fx = StoreFixture.plain(dir, V0)) {
      fx.apply(V0, List.of(new Op(RowOpType.INSERT,
          V0.newPartialRow().addInt("id", 1).addString("a", "x").addLong("b", 7L))));
      fx.store.flush();
      fx.apply(V0, List.of(new Op(RowOpType.INSERT,
          V0.newPartialRow().addInt("id", 2).addString("a", "y").addLong("b", 8L))));
      fx.alter(V1);
      assertThat(scan(fx)).containsExactly(row(1, "x", 42), row(2, "y", 42));
      fx.apply(V1, List.of(
          new Op(RowOpType.UPDATE, V1.newPartialRow().addInt("id", 1).addInt("c", 5)),
          new Op(RowOpType.INSERT, V1.newPartialRow().addInt("id", 3).addString("a2", "z"))));
      assertThat(scan(fx)).containsExactly(row(1, "x", 5), row(2, "y", 42), row(3, "z", 42));
      fx.store.flush();
      fx.store.compact();
      fx.restart();
      assertThat(fx.store.schema()).isEqualTo(V1);
      assertThat(fx.store.lastAppliedIndex()).isEqualTo(fx.index);
      assertThat(scan(fx)).containsExactly(row(1, "x", 5), row(2, "y", 42), row(3, "z", 42));
    }
  }

  @Test
  void aRestartBeforeTheAlterIsFlushedReplaysIt() {
    try (StoreFixture fx = StoreFixture.plain(dir, V0)) {
      fx.apply(V0, List.of(new Op(RowOpType.INSERT,
          V0.newPartialRow().addInt("id", 1).addString("a", "x").addLong("b", 7L))));
      fx.store.flush();
      long durable = fx.store.durableIndex();
      fx.alter(V1);
      fx.restart();
      assertThat(fx.store.lastAppliedIndex()).isEqualTo(durable);
      assertThat(fx.store.schema()).isEqualTo(V0);
      fx.store.alterSchema(V1, durable + 1);
      fx.store.markApplied(1, durable + 1);
      assertThat(scan(fx)).containsExactly(row(1, "x", 42));
    }
  }

  @Test
  void olderVersionsAreIgnoredAndAScanReadingADroppedColumnFailsCleanly() {
    try (StoreFixture fx = StoreFixture.plain(dir, V0)) {
      fx.apply(V0, List.of(new Op(RowOpType.INSERT,
          V0.newPartialRow().addInt("id", 1).addString("a", "x").addLong("b", 7L))));
      TabletScanSpec old = TabletScanSpec.of(V0, List.of(), List.of(), null, null, fx.index);
      fx.alter(V1);
      assertThatThrownBy(() -> fx.store.scan(old, null, 10))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE))
          .hasMessageContaining("column 'b' (id 3)").hasMessageContaining("version 0")
          .hasMessageContaining("version 1");
      fx.alter(V0); // an older version (a replay): ignored, but the entry counts as applied
      assertThat(fx.store.schema()).isEqualTo(V1);
      assertThat(fx.store.lastAppliedIndex()).isEqualTo(fx.index);
      assertThat(scan(fx)).containsExactly(row(1, "x", 42));
    }
  }

  @Test
  void aRefusedChangeLeavesTheStoreAlone() {
    try (StoreFixture fx = StoreFixture.plain(dir, V0)) {
      long before = fx.store.lastAppliedIndex();
      Schema retyped = new Schema(List.of(V0.column(0), V0.column(1),
          new ColumnSchema("b", Type.STRING, false, true, null, 3)), 1);
      assertThatThrownBy(() -> fx.store.alterSchema(retyped, before + 1))
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("'b'");
      assertThat(fx.store.schema()).isEqualTo(V0);
      assertThat(fx.store.lastAppliedIndex()).isEqualTo(before);
    }
  }

  @Test
  void keyTypeAndNullabilityChangesAreRefusedNamingTheColumn() {
    assertRefused(new Schema(List.of(V0.column(0),
        new ColumnSchema("k", Type.INT32, true, false, null, 9), V0.column(1), V0.column(2)), 1),
        "key");
    assertRefused(new Schema(List.of(V0.column(0), V0.column(1),
        new ColumnSchema("b", Type.STRING, false, true, null, 3)), 1), "'b'");
    assertRefused(new Schema(List.of(V0.column(0), V0.column(1),
        new ColumnSchema("b", Type.INT64, false, false, null, 3)), 1), "'b'");
    assertRefused(new Schema(List.of(V0.column(0), V0.column(1), V0.column(2),
        new ColumnSchema("e", Type.INT32, false, false, null, 5)), 1), "'e'");
  }

  @Test
  void columnsWithoutIdsMatchByName() {
    Schema a = new Schema(List.of(ColumnSchema.builder("id", Type.INT32).key(true).build(),
        ColumnSchema.builder("v", Type.STRING).build()), 0);
    Schema b = new Schema(List.of(a.column(0), ColumnSchema.builder("w", Type.STRING).build()), 1);
    TabletSchemaChange.between(a, b);
    assertThat(new Projection(b).project(a, new Object[] {1, "x"})).containsExactly(1, null);
  }

  private static void assertRefused(Schema to, String naming) {
    assertThatThrownBy(() -> TabletSchemaChange.between(V0, to))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining(naming);
  }
}
