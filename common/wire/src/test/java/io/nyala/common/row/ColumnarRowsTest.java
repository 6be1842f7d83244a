package io.nyala.common.row;

import static io.nyala.common.row.DecodeBoundsTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RowBlockPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ColumnarRows} reads back what {@link RowBlock} wrote, as {@link RowBlock#decode} does. */
@Timeout(10)
class ColumnarRowsTest {
  @Test
  void randomRowsOfEveryTypeReadBackAsTheRowDecoderReadsThem() {
    Random rnd = new Random(7);
    RowBlock block = new RowBlock(RowCodecTest.ALL_TYPES);
    for (int i = 0; i < 300; i++) {
      block.add(RowCodecTest.randomRow(rnd).valuesUnsafe());
    }
    RowBlockPB pb = block.toPb();
    List<Object[]> expected = RowBlock.decode(RowCodecTest.ALL_TYPES, pb);
    ColumnarRows rows = ColumnarRows.decode(RowCodecTest.ALL_TYPES, pb);

    assertThat(rows.numRows()).isEqualTo(300);
    for (int r = 0; r < expected.size(); r++) {
      for (int c = 0; c < RowCodecTest.ALL_TYPES.columnCount(); c++) {
        Object want = expected.get(r)[c];
        Object got = rows.value(c, r);
        assertThat(rows.isNull(c, r)).isEqualTo(want == null);
        if (want instanceof byte[] b) {
          assertThat((byte[]) got).containsExactly(b);
        } else {
          assertThat(got).as("row %d column %d", r, c).isEqualTo(want);
        }
      }
    }
  }

  @Test
  void bitsAreTheFixedWidthValuesSignExtendedOrRaw() {
    Schema s = new Schema(List.of(
        ColumnSchema.builder("i8", Type.INT8).build(),
        ColumnSchema.builder("i16", Type.INT16).build(),
        ColumnSchema.builder("b", Type.BOOL).build(),
        ColumnSchema.builder("f", Type.FLOAT).build(),
        ColumnSchema.builder("d", Type.DOUBLE).build(),
        ColumnSchema.builder("day", Type.DATE).build(),
        ColumnSchema.builder("t", Type.TIMESTAMP).build(),
        ColumnSchema.builder("dec", Type.DECIMAL).precision(20).scale(3).build()));
    RowBlock block = new RowBlock(s);
    block.add(new Object[] {(byte) -5, (short) -300, true, -1.5f, 2.25,
        LocalDate.ofEpochDay(-3), Instant.ofEpochSecond(1, 5_000), new BigDecimal("-12.345")});
    ColumnarRows rows = ColumnarRows.decode(s, block.toPb());

    assertThat(rows.bits(0, 0)).isEqualTo(-5);
    assertThat(rows.bits(1, 0)).isEqualTo(-300);
    assertThat(rows.bits(2, 0)).isEqualTo(1);
    assertThat(Float.intBitsToFloat((int) rows.bits(3, 0))).isEqualTo(-1.5f);
    assertThat(Double.longBitsToDouble(rows.bits(4, 0))).isEqualTo(2.25);
    assertThat(rows.bits(5, 0)).isEqualTo(-3);
    assertThat(rows.bits(6, 0)).isEqualTo(1_000_005);
    assertThat(rows.value(7, 0)).isEqualTo(new BigDecimal("-12.345"));
    assertThat(rows.value(5, 0)).isEqualTo(LocalDate.ofEpochDay(-3));
  }

  @Test
  void aTruncatedOrOvercountedBlockIsCorruption() {
    RowBlock block = new RowBlock(RowCodecTest.ALL_TYPES);
    block.add(RowCodecTest.randomRow(new Random(1)).valuesUnsafe());
    byte[] whole = block.toPb().getRows().toByteArray();
    RowBlockPB cut = RowBlockPB.newBuilder()
        .setRows(ByteString.copyFrom(Arrays.copyOf(whole, whole.length - 3))).setNumRows(1)
        .build();
    assertRejected(() -> ColumnarRows.decode(RowCodecTest.ALL_TYPES, cut),
        StatusCode.CORRUPTION, "truncated");
    RowBlockPB huge = RowBlockPB.newBuilder().setRows(ByteString.copyFrom(new byte[] {0, 0}))
        .setNumRows(Integer.MAX_VALUE).build();
    assertRejected(() -> ColumnarRows.decode(RowCodecTest.ALL_TYPES, huge),
        StatusCode.CORRUPTION, "2147483647");
  }

  @Test
  void anEmptyBlockHasNoRows() {
    assertThat(ColumnarRows.decode(RowCodecTest.ALL_TYPES, new RowBlock(RowCodecTest.ALL_TYPES)
        .toPb()).numRows()).isZero();
  }
}
