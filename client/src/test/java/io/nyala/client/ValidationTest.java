package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * Rows are checked at {@code apply}, before anything is sent: the client here points at a port
 * nobody listens on, so any attempt to send would fail differently (and slowly).
 */
@Timeout(10)
class ValidationTest {
  private static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("host", Type.STRING).key(true).build(),
      ColumnSchema.builder("ts", Type.INT64).key(true).build(),
      ColumnSchema.builder("count", Type.INT32).nullable(false).build(),
      ColumnSchema.builder("unit", Type.STRING).nullable(false).defaultValue("ms").build(),
      ColumnSchema.builder("note", Type.STRING).build()));

  private final NyalaClient client = NyalaClient.builder("127.0.0.1:1")
      .defaultOperationTimeoutMs(200).build();
  private final NyalaTable table = new NyalaTable(client.getAsyncClient(), "id-1", "metrics",
      SCHEMA, PartitionSchema.unpartitioned(SCHEMA), 1);
  private final NyalaSession session = client.newSession();

  @AfterEach
  void tearDown() {
    client.close();
  }

  private static void assertInvalid(Executable e, String column) {
    NyalaException ex = org.junit.jupiter.api.Assertions.assertThrows(NyalaException.class, e);
    assertThat(ex.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(ex.getMessage()).contains("'" + column + "'");
  }

  @Test
  void missingKeyColumn() {
    Operation op = table.newUpdate();
    op.getRow().addString("host", "a").addInt("count", 1);
    assertInvalid(() -> session.apply(op), "ts");
  }

  @Test
  void nullInAKeyOrNonNullableColumn() {
    assertInvalid(() -> table.newInsert().getRow().setNull("host"), "host");
    assertInvalid(() -> table.newUpsert().getRow().setNull("count"), "count");
    assertInvalid(() -> table.newInsert().getRow().addString("host", null), "host");
  }

  @Test
  void insertOrUpsertMissingANonNullableColumnWithoutDefault() {
    for (Operation op : List.of(table.newInsert(), table.newUpsert(), table.newInsertIgnore())) {
      op.getRow().addString("host", "a").addLong("ts", 1);
      assertInvalid(() -> session.apply(op), "count");
    }
  }

  @Test
  void wrongColumnType() {
    assertInvalid(() -> table.newInsert().getRow().addInt("ts", 1), "ts");
    assertInvalid(() -> table.newInsert().getRow().addObject("count", "seven"), "count");
  }

  @Test
  void deleteMustOnlyNameKeyColumns() {
    Operation op = table.newDelete();
    op.getRow().addString("host", "a").addLong("ts", 1).addString("note", "x");
    assertInvalid(() -> session.apply(op), "note");
  }

  @Test
  void validRowsPassValidation() {
    Operation insert = table.newInsert();
    // "unit" has a default and "note" is nullable, so both may be left out.
    insert.getRow().addString("host", "a").addLong("ts", 1).addInt("count", 3);
    insert.validate();
    Operation update = table.newUpdate();
    update.getRow().addString("host", "a").addLong("ts", 1).addString("note", "x");
    update.validate();
    Operation delete = table.newDeleteIgnore();
    delete.getRow().addString("host", "a").addLong("ts", 1);
    delete.validate();
  }

  @Test
  void manualFlushBufferLimitAndModeChanges() {
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.setMutationBufferSpace(1);
    Operation ok = table.newInsert();
    ok.getRow().addString("host", "a").addLong("ts", 1).addInt("count", 3);
    assertThat(session.apply(ok)).isNull();
    assertThatThrownBy(() -> session.apply(ok)).isInstanceOfSatisfying(NyalaException.class,
        e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE));
    assertThatThrownBy(() -> session.setFlushMode(NyalaSession.FlushMode.AUTO_FLUSH_SYNC))
        .hasMessageContaining("1 buffered");
  }
}
