package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Parsing of {@code table alter --add-column name:type[:default]}. */
@Timeout(10)
class TableAlterCommandTest {
  @Test
  void withADefaultTheColumnIsNotNull() {
    ColumnSchema c = TableAlterCommand.column("score:int64:7");
    assertThat(c.name()).isEqualTo("score");
    assertThat(c.type()).isEqualTo(Type.INT64);
    assertThat(c.nullable()).isFalse();
    assertThat(c.defaultValue()).isEqualTo(7L);
    assertThat(TableAlterCommand.column("url:string:http://x").defaultValue())
        .isEqualTo("http://x");
  }

  @Test
  void withoutADefaultTheColumnIsNullable() {
    ColumnSchema c = TableAlterCommand.column("note:STRING");
    assertThat(c.nullable()).isTrue();
    assertThat(c.defaultValue()).isNull();
  }

  @Test
  void badSpecsNameTheProblem() {
    assertInvalid("x:nope", "unknown type 'nope' (valid types: int8, int16, int32, int64, bool, "
        + "float, double, string, binary, unixtime_micros, decimal(p,s), date, varchar(n), "
        + "timestamp)");
    assertInvalid("x:varchar(a)", "type 'varchar(a)' takes (length), e.g. varchar(20)");
    assertInvalid("d:int32:abc", "'abc' is not a INT32");
    assertInvalid("justname", "name:type[:default]");
  }

  private static void assertInvalid(String spec, String fragment) {
    assertThatThrownBy(() -> TableAlterCommand.column(spec))
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains(spec).contains(fragment);
        });
  }
}
