package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ColumnarRows;
import io.nyala.common.row.RowBlock;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RowResultTest {
  private static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("i8", Type.INT8).build(),
      ColumnSchema.builder("i16", Type.INT16).build(),
      ColumnSchema.builder("i32", Type.INT32).build(),
      ColumnSchema.builder("i64", Type.INT64).build(),
      ColumnSchema.builder("b", Type.BOOL).build(),
      ColumnSchema.builder("f", Type.FLOAT).build(),
      ColumnSchema.builder("d", Type.DOUBLE).build(),
      ColumnSchema.builder("s", Type.STRING).build(),
      ColumnSchema.builder("bin", Type.BINARY).build(),
      ColumnSchema.builder("ts", Type.UNIXTIME_MICROS).build(),
      ColumnSchema.builder("n", Type.INT32).build()));

  private final RowResult row = rowOf(SCHEMA, new Object[] {(byte) 1, (short) 2, 3, 4L,
      true, 5.5f, 6.5, "seven", new byte[] {8}, 9L, null});

  /** A row as a scan returns it: encoded by a server's RowBlock, read as a columnar page. */
  private static RowResult rowOf(Schema schema, Object[] values) {
    RowBlock block = new RowBlock(schema);
    block.add(values);
    return new RowResult(ColumnarRows.decode(schema, block.toPb()), 0);
  }

  @Test
  void typedGettersByNameAndIndex() {
    assertThat(row.getByte("i8")).isEqualTo((byte) 1);
    assertThat(row.getShort(1)).isEqualTo((short) 2);
    assertThat(row.getInt("i32")).isEqualTo(3);
    assertThat(row.getLong(3)).isEqualTo(4L);
    assertThat(row.getBoolean("b")).isTrue();
    assertThat(row.getFloat("f")).isEqualTo(5.5f);
    assertThat(row.getDouble("d")).isEqualTo(6.5);
    assertThat(row.getString("s")).isEqualTo("seven");
    assertThat(row.getBinary("bin")).containsExactly(8);
    assertThat(row.getTimestampMicros("ts")).isEqualTo(9L);
    assertThat(row.getLong("ts")).as("getLong reads timestamps too").isEqualTo(9L);
    assertThat(row.getObject("i32")).isEqualTo(3);
    assertThat(row.isNull("n")).isTrue();
    assertThat(row.isNull(0)).isFalse();
    assertThat(row.getColumnIndex("d")).isEqualTo(6);
  }

  @Test
  void binaryValuesAreCopies() {
    row.getBinary("bin")[0] = 42;
    ((byte[]) row.getObject("bin"))[0] = 42;
    assertThat(row.getBinary("bin")).containsExactly(8);
  }

  private static void assertInvalid(Runnable r, String... fragments) {
    assertThatThrownBy(r::run).isInstanceOfSatisfying(NyalaException.class, e -> {
      assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
      assertThat(e.getMessage()).contains(fragments);
    });
  }

  @Test
  void wrongTypesNullsAndUnknownColumnsNameTheColumn() {
    assertInvalid(() -> row.getString("i32"), "'i32'", "INT32");
    assertInvalid(() -> row.getInt("i64"), "'i64'");
    assertInvalid(() -> row.getTimestampMicros("i64"), "'i64'");
    assertInvalid(() -> row.getInt("n"), "'n'", "null");
    assertInvalid(() -> row.getLong("nope"), "'nope'");
    assertInvalid(() -> row.getLong(99), "99");
  }
}
