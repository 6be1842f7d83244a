package io.nyala.common.row;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class KeyEncoderTest {
  private static final List<ColumnSchema> KEY = List.of(
      ColumnSchema.builder("a", Type.INT32).key(true).build(),
      ColumnSchema.builder("b", Type.STRING).key(true).build(),
      ColumnSchema.builder("c", Type.INT64).key(true).build());

  @Test
  void encodedOrderMatchesValueOrder() {
    Random rnd = new Random(7);
    String[] strs = {"", "\0", "\0\0", "a", "a\0", "a\0b", "ab", "b", "\u00ff"};
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      rows.add(new Object[] {rnd.nextInt(5) - 2, strs[rnd.nextInt(strs.length)],
          rnd.nextBoolean() ? rnd.nextLong() : (long) rnd.nextInt(3) - 1});
    }
    Comparator<Object[]> byValue = Comparator
        .<Object[], Integer>comparing(r -> (Integer) r[0])
        .thenComparing(r -> ((String) r[1]).getBytes(java.nio.charset.StandardCharsets.UTF_8),
            Arrays::compareUnsigned)
        .thenComparing(r -> (Long) r[2]);
    for (int i = 0; i + 1 < rows.size(); i++) {
      Object[] x = rows.get(i);
      Object[] y = rows.get(i + 1);
      int expected = Integer.signum(byValue.compare(x, y));
      int actual = Integer.signum(KeyEncoder.compare(KeyEncoder.encode(KEY, x),
          KeyEncoder.encode(KEY, y)));
      assertThat(actual).as("%s vs %s", Arrays.toString(x), Arrays.toString(y))
          .isEqualTo(expected);
    }
  }

  @Test
  void decodeInvertsEncode() {
    Object[] v = {-5, "x\0y", Long.MIN_VALUE};
    assertThat(KeyEncoder.decode(KEY, KeyEncoder.encode(KEY, v))).isEqualTo(v);
    List<ColumnSchema> binLast = List.of(
        ColumnSchema.builder("i", Type.INT16).key(true).build(),
        ColumnSchema.builder("b", Type.BINARY).key(true).build());
    Object[] w = {(short) -1, new byte[] {0, 1, 0, (byte) 0xff}};
    Object[] back = KeyEncoder.decode(binLast, KeyEncoder.encode(binLast, w));
    assertThat(back[0]).isEqualTo((short) -1);
    assertThat((byte[]) back[1]).containsExactly(0, 1, 0, 0xff);
  }
}
