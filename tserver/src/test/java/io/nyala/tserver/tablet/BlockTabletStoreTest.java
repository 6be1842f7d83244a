package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations.Op;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class BlockTabletStoreTest {
  static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("id", Type.INT32).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).nullable(false).build(),
      ColumnSchema.builder("n", Type.INT64).defaultValue(7L).build(),
      ColumnSchema.builder("c", Type.STRING).build()));

  @TempDir Path dir;
  private StoreFixture fx;
  private BlockTabletStore store;
  private long index;

  @BeforeEach
  void setUp() {
    fx = StoreFixture.plain(dir, SCHEMA);
    store = fx.store;
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  static Op op(RowOpType type, Object... kv) {
    PartialRow r = SCHEMA.newPartialRow();
    for (int i = 0; i < kv.length; i += 2) {
      r.addObject((String) kv[i], kv[i + 1]);
    }
    return new Op(type, r);
  }

  private List<RowOpError> apply(Op... ops) {
    List<RowOpError> errs = fx.apply(SCHEMA, List.of(ops));
    index = fx.index;
    return errs;
  }

  private List<Object[]> scanAll(long snapshot) {
    TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of(), List.of(), null, null, snapshot);
    return store.scan(spec, null, 1_000_000).rows();
  }

  private Object[] row(int id) {
    for (Object[] r : scanAll(index)) {
      if (r[0].equals(id)) {
        return r;
      }
    }
    return null;
  }

  @Test
  void insertAppliesDefaultsAndRejectsDuplicates() {
    assertThat(apply(op(RowOpType.INSERT, "id", 1, "v", "a"))).isEmpty();
    assertThat(row(1)).containsExactly(1, "a", 7L, null);
    List<RowOpError> errs = apply(op(RowOpType.INSERT, "id", 2, "v", "b"),
        op(RowOpType.INSERT, "id", 1, "v", "x"));
    assertThat(errs).hasSize(1);
    assertThat(errs.get(0).rowIndex()).isEqualTo(1);
    assertThat(errs.get(0).error().code()).isEqualTo(StatusCode.ALREADY_PRESENT);
    assertThat(errs.get(0).error().detail()).isEqualTo("key (id=1) already present");
    assertThat(row(1)[1]).isEqualTo("a");
    assertThat(apply(op(RowOpType.INSERT_IGNORE, "id", 1, "v", "y"))).isEmpty();
    assertThat(row(1)[1]).isEqualTo("a");
    assertThat(store.liveRowCount()).isEqualTo(2);
  }

  @Test
  void missingNonNullableAndKeyColumnsArePerRowErrors() {
    List<RowOpError> errs = apply(op(RowOpType.INSERT, "id", 1), op(RowOpType.UPSERT, "v", "x"),
        op(RowOpType.INSERT, "id", 3, "v", "ok"));
    assertThat(errs).hasSize(2);
    assertThat(errs.get(0).error().code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(errs.get(0).error().detail()).isEqualTo("INSERT is missing non-nullable column 'v'");
    assertThat(errs.get(1).error().detail()).isEqualTo("row is missing key column 'id'");
    assertThat(scanAll(index)).hasSize(1);
  }

  @Test
  void upsertInsertsOrUpdatesOnlySetColumns() {
    apply(op(RowOpType.UPSERT, "id", 1, "v", "a", "c", "keep"));
    apply(op(RowOpType.UPSERT, "id", 1, "n", 9L));
    assertThat(row(1)).containsExactly(1, "a", 9L, "keep");
  }

  @Test
  void updateAndDeleteNeedAnExistingRowUnlessIgnore() {
    List<RowOpError> errs = apply(op(RowOpType.UPDATE, "id", 5, "v", "z"),
        op(RowOpType.DELETE, "id", 5), op(RowOpType.UPDATE_IGNORE, "id", 5, "v", "z"),
        op(RowOpType.DELETE_IGNORE, "id", 5));
    assertThat(errs).extracting(e -> e.error().code())
        .containsExactly(StatusCode.NOT_FOUND, StatusCode.NOT_FOUND);
    assertThat(errs.get(0).error().detail()).isEqualTo("key (id=5) not found");
    apply(op(RowOpType.INSERT, "id", 5, "v", "a"));
    assertThat(apply(op(RowOpType.UPDATE, "id", 5, "c", "x"))).isEmpty();
    assertThat(row(5)).containsExactly(5, "a", 7L, "x");
    assertThat(apply(op(RowOpType.UPDATE_IGNORE, "id", 5, "v", "b"))).isEmpty();
    assertThat(row(5)[1]).isEqualTo("b");
    assertThat(apply(op(RowOpType.DELETE, "id", 5))).isEmpty();
    assertThat(row(5)).isNull();
    assertThat(apply(op(RowOpType.DELETE_IGNORE, "id", 5))).isEmpty();
    assertThat(store.liveRowCount()).isZero();
  }

  @Test
  void settingNonNullableColumnToNullIsRejected() {
    Schema loose = new Schema(List.of(ColumnSchema.builder("id", Type.INT32).key(true).build(),
        ColumnSchema.builder("v", Type.STRING).build()));
    PartialRow r = loose.newPartialRow().addInt("id", 1).setNull("v");
    List<RowOpError> errs = fx.apply(loose, List.of(new Op(RowOpType.INSERT, r)));
    assertThat(errs.get(0).error().detail()).contains("'v'").contains("not nullable");
  }

  @Test
  void writeSchemaMustMatchTypesAndKeyness() {
    Schema wrong = new Schema(List.of(ColumnSchema.builder("id", Type.INT64).key(true).build()));
    assertThatThrownBy(() -> store.apply(wrong, List.of(), ++index))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("column 'id' is of type INT32 in the tablet but INT64");
  }

  @Test
  void scansReadAsOfTheirSnapshot() {
    apply(op(RowOpType.INSERT, "id", 1, "v", "old"));
    long before = index;
    store.pin(before);
    apply(op(RowOpType.UPDATE, "id", 1, "v", "new"), op(RowOpType.INSERT, "id", 2, "v", "b"));
    apply(op(RowOpType.DELETE, "id", 1));
    assertThat(scanAll(before)).hasSize(1);
    assertThat(scanAll(before).get(0)[1]).isEqualTo("old");
    assertThat(scanAll(index)).extracting(r -> r[0]).containsExactly(2);
    store.collectGarbage();
    assertThat(scanAll(before).get(0)[1]).isEqualTo("old");
  }

  @Test
  void garbageCollectionKeepsOnlyWhatPinnedSnapshotsNeed() {
    apply(op(RowOpType.INSERT, "id", 1, "v", "a"));
    long pinned = store.pinLatest(0);
    for (int i = 0; i < 5; i++) {
      apply(op(RowOpType.UPDATE, "id", 1, "v", "v" + i));
    }
    store.collectGarbage();
    // The pinned version plus every newer one.
    assertThat(store.versionCount()).isEqualTo(6);
    store.unpin(pinned);
    store.collectGarbage();
    assertThat(store.versionCount()).isEqualTo(1);
    assertThatThrownBy(() -> store.pin(pinned))
        .hasMessageContaining("earlier than the ancient history mark");
    apply(op(RowOpType.DELETE, "id", 1));
    apply(op(RowOpType.INSERT, "id", 2, "v", "x"));
    store.collectGarbage();
    assertThat(store.versionCount()).isEqualTo(1);
  }

  @Test
  void predicatesProjectionAndKeyRange() {
    for (int i = 0; i < 20; i++) {
      apply(op(RowOpType.INSERT, "id", i, "v", "r" + i, "n", (long) (i % 3)));
    }
    TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of("v", "id"),
        List.of(ColumnPredicate.comparison("n", ColumnPredicate.Op.EQUAL, 0L)),
        key(3), key(12), index);
    List<Object[]> rows = store.scan(spec, null, 100).rows();
    assertThat(rows).extracting(r -> r[1]).containsExactly(3, 6, 9);
    assertThat(rows.get(0)).containsExactly("r3", 3);
    assertThat(spec.projection().columns()).extracting(ColumnSchema::name)
        .containsExactly("v", "id");
    assertThatThrownBy(() -> TabletScanSpec.of(SCHEMA, List.of("nope"), List.of(), null, null, 1))
        .hasMessageContaining("column 'nope' not found");
  }

  @Test
  void pagesResumeAfterTheLastKey() {
    for (int i = 0; i < 25; i++) {
      apply(op(RowOpType.INSERT, "id", i, "v", "x"));
    }
    TabletScanSpec spec = TabletScanSpec.of(SCHEMA, List.of("id"), List.of(), null, null, index);
    List<Object> seen = new ArrayList<>();
    byte[] after = null;
    ScanPage p;
    do {
      p = store.scan(spec, after, 10);
      p.rows().forEach(r -> seen.add(r[0]));
      after = p.lastKey();
    } while (p.hasMore());
    assertThat(seen).hasSize(25).doesNotHaveDuplicates();
  }

  @Test
  void flushAndReopenKeepRowsAndPinnedVersions() {
    apply(op(RowOpType.INSERT, "id", 1, "v", "a"));
    long old = store.pinLatest(0);
    apply(op(RowOpType.UPDATE, "id", 1, "v", "b"), op(RowOpType.INSERT, "id", 2, "v", "c"));
    apply(op(RowOpType.DELETE, "id", 2));
    assertThat(store.flush()).isTrue();
    assertThat(store.durableIndex()).isEqualTo(index);
    assertThat(store.memoryBytes()).isZero();
    TabletScanSpec at = TabletScanSpec.of(SCHEMA, List.of(), List.of(), null, null, old);
    assertThat(store.scan(at, null, 10).rows().get(0)[1]).isEqualTo("a");
    apply(op(RowOpType.UPDATE, "id", 1, "v", "d"));
    assertThat(row(1)[1]).isEqualTo("d");
    assertThat(apply(op(RowOpType.INSERT, "id", 1, "v", "dup"))).singleElement()
        .satisfies(e -> assertThat(e.error().code()).isEqualTo(StatusCode.ALREADY_PRESENT));
    assertThat(store.flush()).isTrue();

    fx.restart();
    store = fx.store;
    assertThat(store.lastAppliedIndex()).isEqualTo(index);
    assertThat(store.liveRowCount()).isEqualTo(1);
    assertThat(store.scan(at, null, 10).rows().get(0)[1]).isEqualTo("a");
    assertThat(store.scan(at.atSnapshot(index), null, 10).rows())
        .singleElement().satisfies(r -> assertThat(r[1]).isEqualTo("d"));
    // Re-inserting a deleted key of a flushed rowset lands in that rowset again.
    fx.index = index;
    apply(op(RowOpType.INSERT, "id", 2, "v", "again"));
    assertThat(row(2)[1]).isEqualTo("again");
  }

  @Test
  void entriesAtOrBelowTheLastAppliedIndexAreIgnored() {
    apply(op(RowOpType.INSERT, "id", 1, "v", "a"));
    assertThat(store.apply(SCHEMA, List.of(op(RowOpType.INSERT, "id", 1, "v", "a")), index))
        .isEmpty();
    assertThat(store.liveRowCount()).isEqualTo(1);
  }

  private static byte[] key(int id) {
    return KeyEncoder.encode(SCHEMA.keyColumns(), new Object[] {id});
  }
}
