package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WriteSchemaCacheTest {
  private static final ColumnSchema ID = ColumnSchema.builder("id", Type.INT32).key(true).build();
  private static final ColumnSchema V = ColumnSchema.builder("v", Type.STRING).build();
  private static final Schema V0 = new Schema(List.of(ID, V), 0);
  /** After ALTER TABLE DROP COLUMN v. */
  private static final Schema V1 = new Schema(List.of(ID), 1);

  private final WriteSchemaCache cache = new WriteSchemaCache();

  @Test
  void anEqualSchemaFromAnotherRequestIsDecodedOnce() throws Exception {
    Schema first = cache.resolve(V0.toPb(), V0);
    SchemaPB reparsed = SchemaPB.parseFrom(V0.toPb().toByteArray());
    assertThat(cache.resolve(reparsed, V0)).isSameAs(first).isEqualTo(V0);
    assertThat(cache.size()).isEqualTo(1);
  }

  @Test
  void anAlterInvalidatesWhatWasCheckedAgainstTheOldSchema() {
    cache.resolve(V0.toPb(), V0);
    assertThatThrownBy(() -> cache.resolve(V0.toPb(), V1))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("column 'v'");
    assertThat(cache.size()).isZero();
    assertThat(cache.resolve(V1.toPb(), V1)).isEqualTo(V1);
    assertThat(cache.size()).isEqualTo(1);
  }

  @Test
  void aRejectedSchemaIsNotCached() {
    Schema wrongType = new Schema(List.of(ID, ColumnSchema.builder("v", Type.INT64).build()));
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> cache.resolve(wrongType.toPb(), V0))
          .hasMessageContaining("column 'v' is of type STRING in the tablet but INT64");
    }
    assertThat(cache.size()).isZero();
  }

  @Test
  void staysBounded() {
    for (int i = 0; i < WriteSchemaCache.MAX_ENTRIES * 3; i++) {
      // Distinct protos that decode alike: the same columns under other (client) versions.
      cache.resolve(V0.toPb().toBuilder().setVersion(100 + i).build(), V0);
    }
    assertThat(cache.size()).isBetween(1, WriteSchemaCache.MAX_ENTRIES);
  }
}
