package io.nyala.common.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RowCodecTest {
  static final Schema ALL_TYPES = Schema.forTable(List.of(
      ColumnSchema.builder("k1", Type.INT32).key(true).build(),
      ColumnSchema.builder("k2", Type.STRING).key(true).build(),
      ColumnSchema.builder("i8", Type.INT8).build(),
      ColumnSchema.builder("i16", Type.INT16).build(),
      ColumnSchema.builder("i64", Type.INT64).build(),
      ColumnSchema.builder("b", Type.BOOL).build(),
      ColumnSchema.builder("f", Type.FLOAT).build(),
      ColumnSchema.builder("d", Type.DOUBLE).build(),
      ColumnSchema.builder("bin", Type.BINARY).build(),
      ColumnSchema.builder("ts", Type.UNIXTIME_MICROS).build()));

  static PartialRow randomRow(Random rnd) {
    PartialRow r = ALL_TYPES.newPartialRow();
    r.addInt("k1", rnd.nextInt());
    r.addString("k2", "s" + rnd.nextInt(1000) + "\u00e9\0x");
    if (rnd.nextBoolean()) {
      r.addByte("i8", (byte) rnd.nextInt());
    }
    if (rnd.nextBoolean()) {
      r.setNull("i16");
    } else {
      r.addShort("i16", (short) rnd.nextInt());
    }
    r.addLong("i64", rnd.nextLong());
    r.addBoolean("b", rnd.nextBoolean());
    r.addFloat("f", rnd.nextFloat());
    r.addDouble("d", rnd.nextDouble());
    byte[] bin = new byte[rnd.nextInt(20)];
    rnd.nextBytes(bin);
    r.addBinary("bin", bin);
    r.addTimestampMicros("ts", rnd.nextLong());
    return r;
  }

  @Test
  void operationsRoundTripWithSetAndNullBits() {
    Random rnd = new Random(42);
    List<RowOperations.Op> ops = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ops.add(new RowOperations.Op(RowOpType.values()[i % RowOpType.values().length],
          randomRow(rnd)));
    }
    List<RowOperations.Op> back = RowOperations.decode(ALL_TYPES,
        RowOperations.encode(ALL_TYPES, ops));
    assertThat(back).hasSize(ops.size());
    for (int i = 0; i < ops.size(); i++) {
      assertThat(back.get(i).type()).isEqualTo(ops.get(i).type());
      PartialRow a = ops.get(i).row();
      PartialRow b = back.get(i).row();
      for (int c = 0; c < ALL_TYPES.columnCount(); c++) {
        assertThat(b.isSet(c)).as("set %d", c).isEqualTo(a.isSet(c));
        assertThat(b.get(c)).as("value %d", c).isEqualTo(a.get(c));
      }
    }
  }

  @Test
  void truncatedOperationsAreCorruptionNotCrash() {
    Random rnd = new Random(1);
    RowOperationsPB pb = RowOperations.encode(ALL_TYPES,
        List.of(new RowOperations.Op(RowOpType.INSERT, randomRow(rnd))));
    RowOperationsPB cut = pb.toBuilder().setRows(pb.getRows().substring(0, pb.getRows().size() - 3))
        .build();
    assertThatThrownBy(() -> RowOperations.decode(ALL_TYPES, cut))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION));
    RowOperationsPB badType = pb.toBuilder().setRows(com.google.protobuf.ByteString.copyFrom(
        new byte[] {99, 0, 0, 0, 0})).setCount(1).build();
    assertThatThrownBy(() -> RowOperations.decode(ALL_TYPES, badType))
        .hasMessageContaining("unknown row operation type 99");
  }

  @Test
  void rowBlockRoundTrips() {
    Schema proj = ALL_TYPES.project(List.of("k2", "i16", "bin", "d"));
    RowBlock block = new RowBlock(proj);
    Random rnd = new Random(5);
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      PartialRow r = randomRow(rnd);
      Object[] v = {r.get("k2"), r.get("i16"), r.get("bin"), r.get("d")};
      rows.add(v);
      block.add(v);
    }
    List<Object[]> back = RowBlock.decode(proj, block.toPb());
    assertThat(back).hasSize(50);
    for (int i = 0; i < 50; i++) {
      assertThat(back.get(i)).isEqualTo(rows.get(i));
    }
  }
}
