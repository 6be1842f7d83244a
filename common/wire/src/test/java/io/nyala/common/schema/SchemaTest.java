package io.nyala.common.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SchemaTest {
  static Schema schema() {
    return Schema.forTable(List.of(
        ColumnSchema.builder("id", Type.INT64).key(true).build(),
        ColumnSchema.builder("name", Type.STRING).nullable(false).build(),
        ColumnSchema.builder("score", Type.DOUBLE).defaultValue(1.5).build()));
  }

  @Test
  void roundTripsThroughProtobuf() {
    Schema s = schema().withVersion(3);
    Schema back = Schema.fromPb(s.toPb());
    assertThat(back).isEqualTo(s);
    assertThat(back.keyColumnCount()).isEqualTo(1);
    assertThat(back.column("score").defaultValue()).isEqualTo(1.5);
  }

  @Test
  void rejectsSchemaWithoutKey() {
    assertThatThrownBy(() -> Schema.forTable(List.of(
        ColumnSchema.builder("v", Type.INT32).build())))
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("no primary key");
        });
  }

  @Test
  void rejectsKeyAfterNonKeyDuplicatesAndBadKeyTypes() {
    assertThatThrownBy(() -> Schema.forTable(List.of(
        ColumnSchema.builder("v", Type.INT32).build(),
        ColumnSchema.builder("k", Type.INT32).key(true).build())))
        .hasMessageContaining("'k'").hasMessageContaining("before");
    assertThatThrownBy(() -> Schema.forTable(List.of(
        ColumnSchema.builder("k", Type.INT32).key(true).build(),
        ColumnSchema.builder("k", Type.INT32).build())))
        .hasMessageContaining("duplicate column name 'k'");
    assertThatThrownBy(() -> ColumnSchema.builder("d", Type.DOUBLE).key(true).build())
        .hasMessageContaining("'d'").hasMessageContaining("DOUBLE");
    assertThatThrownBy(() -> ColumnSchema.builder("k", Type.INT32).key(true).nullable(true).build())
        .hasMessageContaining("'k'").hasMessageContaining("nullable");
  }

  @Test
  void partialRowChecksTypesAndNullability() {
    PartialRow r = schema().newPartialRow();
    assertThatThrownBy(() -> r.addString("id", "x"))
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("'id'").contains("INT64").contains("STRING");
        });
    assertThatThrownBy(() -> r.setNull("name")).hasMessageContaining("'name'");
    assertThatThrownBy(() -> r.setNull("id")).hasMessageContaining("key column");
    assertThatThrownBy(() -> r.addLong("nope", 1))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
    assertThatThrownBy(r::checkKeySet).hasMessageContaining("missing key column 'id'");
    r.addLong("id", 7).setNull("score");
    r.checkKeySet();
    assertThat(r.isNull(2)).isTrue();
    assertThat(r.isSet("name")).isFalse();
  }

  @Test
  void addObjectNarrowsIntegersWithRangeCheck() {
    Schema s = Schema.forTable(List.of(ColumnSchema.builder("k", Type.INT8).key(true).build()));
    PartialRow r = s.newPartialRow();
    r.addObject("k", 12L);
    assertThat(r.get(0)).isEqualTo((byte) 12);
    assertThatThrownBy(() -> r.addObject("k", 300)).hasMessageContaining("out of range");
  }

  @Test
  void projectionKeepsOrderAndFailsOnUnknownColumn() {
    Schema p = schema().project(List.of("score", "id"));
    assertThat(p.columns()).extracting(ColumnSchema::name).containsExactly("score", "id");
    assertThatThrownBy(() -> schema().project(List.of("zzz"))).hasMessageContaining("'zzz'");
  }
}
