package io.nyala.common.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.PartitionSchemaPB;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RangePartitionTest {
  private static final Schema S = Schema.forTable(List.of(
      ColumnSchema.builder("day", Type.INT64).key(true).build(),
      ColumnSchema.builder("id", Type.INT64).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).nullable(true).build()));
  private static final List<PartitionSchema.HashDimension> HASH_ID =
      List.of(new PartitionSchema.HashDimension(List.of("id"), 2, 0));

  private static byte[] day(long d) {
    return KeyEncoder.encode(List.of(S.column(0)), new Object[] {d});
  }

  private static RangeBounds days(long from, long to) {
    return new RangeBounds(day(from), day(to));
  }

  /** Two hash buckets x ranges [0, 10) and [20, 30), with a gap between them. */
  private static PartitionSchema withGap() {
    return new PartitionSchema(HASH_ID, List.of("day"), List.of(days(20, 30), days(0, 10)), S);
  }

  @Test
  void hashOnlyKeysAndPartitionsAreUnchanged() {
    PartitionSchema ps = new PartitionSchema(HASH_ID, S);
    Object[] row = {5L, 42L, null};
    byte[] key = ps.partitionKey(row);
    assertThat(key).isEqualTo(ByteBuffer.allocate(4).putInt(ps.bucket(0, row)).array());
    PartitionSchemaPB pb = ps.toPb();
    assertThat(pb.getRangeColumnsCount()).isZero();
    assertThat(pb.getRangesCount()).isZero();
    List<PartitionPB> parts = ps.createPartitions();
    assertThat(parts).hasSize(2);
    assertThat(parts.get(0).getPartitionKeyStart().isEmpty()).isTrue();
    assertThat(parts.get(0).hasRange()).isFalse();
    assertThat(PartitionSchema.fromPb(pb, S).createPartitions()).isEqualTo(parts);
  }

  @Test
  void partitionKeyIsBucketsThenRangeKey() {
    PartitionSchema ps = withGap();
    Object[] row = {7L, 42L, "x"};
    byte[] key = ps.partitionKey(row);
    assertThat(Arrays.copyOfRange(key, 0, 4))
        .isEqualTo(ByteBuffer.allocate(4).putInt(ps.bucket(0, row)).array());
    assertThat(Arrays.copyOfRange(key, 4, key.length)).isEqualTo(day(7));
    PartitionSchema rangeOnly = new PartitionSchema(List.of(), List.of("day"),
        List.of(RangeBounds.UNBOUNDED), S);
    assertThat(rangeOnly.partitionKey(row)).isEqualTo(day(7));
  }

  @Test
  void partitionsAreBucketsTimesRangesAndGapsHoldNoRow() {
    PartitionSchema ps = withGap();
    assertThat(ps.ranges()).containsExactly(days(0, 10), days(20, 30));
    List<PartitionPB> parts = ps.createPartitions();
    assertThat(parts).hasSize(4).hasSize(ps.numTablets());
    for (int i = 0; i + 1 < parts.size(); i++) {
      assertThat(KeyEncoder.compare(parts.get(i).getPartitionKeyEnd().toByteArray(),
          parts.get(i + 1).getPartitionKeyStart().toByteArray())).isLessThanOrEqualTo(0);
    }
    for (long d = -5; d < 35; d++) {
      for (long id = 0; id < 20; id++) {
        Object[] row = {d, id, null};
        long covering = parts.stream().filter(p -> covers(p, ps.partitionKey(row))).count();
        boolean inRange = (d >= 0 && d < 10) || (d >= 20 && d < 30);
        assertThat(covering).as("day %d id %d", d, id).isEqualTo(inRange ? 1 : 0);
        assertThat(ps.rangeOf(row) != null).isEqualTo(inRange);
      }
    }
    PartitionPB first = parts.get(0);
    assertThat(first.getHashBucketsList()).containsExactly(0);
    assertThat(RangeBounds.fromPb(first.getRange())).isEqualTo(days(0, 10));
  }

  @Test
  void unboundedRangesTileEachBucket() {
    PartitionSchema ps = new PartitionSchema(HASH_ID, List.of("day"),
        List.of(new RangeBounds(new byte[0], day(10)), new RangeBounds(day(10), new byte[0])),
        S);
    List<PartitionPB> parts = ps.createPartitions();
    assertThat(parts).hasSize(4);
    for (int i = 0; i + 1 < parts.size(); i++) {
      assertThat(parts.get(i).getPartitionKeyEnd())
          .isEqualTo(parts.get(i + 1).getPartitionKeyStart());
    }
    assertThat(parts.get(3).getPartitionKeyEnd().isEmpty()).isTrue();
  }

  @Test
  void roundTripsThroughTheWire() {
    PartitionSchema ps = withGap();
    PartitionSchema back = PartitionSchema.fromPb(ps.toPb(), S);
    assertThat(back.ranges()).isEqualTo(ps.ranges());
    assertThat(back.createPartitions()).isEqualTo(ps.createPartitions());
    assertThat(back.toString()).contains("RANGE(day)").contains("[(day=0), (day=10))");
  }

  @Test
  void splitRowsSplitRanges() {
    RangeSchema rs = new RangeSchema(List.of("day"), S);
    assertThat(rs.split(List.of(RangeBounds.UNBOUNDED), List.of(day(20), day(10))))
        .containsExactly(new RangeBounds(new byte[0], day(10)), days(10, 20),
            new RangeBounds(day(20), new byte[0]));
    assertThatThrownBy(() -> rs.split(List.of(days(0, 10)), List.of(day(0))))
        .hasMessageContaining("split row (day=0) is a range partition's bound");
    assertThatThrownBy(() -> rs.split(List.of(days(0, 10)), List.of(day(15))))
        .hasMessageContaining("split row (day=15) is outside every range partition");
  }

  @Test
  void boundsSetEveryRangeColumnOrNone() {
    RangeSchema rs = new RangeSchema(List.of("day"), S);
    PartialRow none = S.newPartialRow();
    assertThat(rs.encodeBound(none, "lower bound")).isEmpty();
    PartialRow ok = S.newPartialRow().addLong("day", 3);
    assertThat(rs.encodeBound(ok, "lower bound")).isEqualTo(day(3));
    PartialRow extra = S.newPartialRow().addLong("day", 3).addLong("id", 1);
    assertThatThrownBy(() -> rs.encodeBound(extra, "upper bound"))
        .hasMessageContaining("upper bound sets column 'id', which is not a range partition");
    RangeSchema two = new RangeSchema(List.of("day", "id"), S);
    assertThatThrownBy(() -> two.encodeBound(ok, "split row"))
        .hasMessageContaining("leaves range column 'id' unset");
    assertThatThrownBy(() -> new RangeSchema(List.of("v"), S))
        .hasMessageContaining("range partition column 'v' is not a primary key column");
    assertThatThrownBy(() -> days(5, 5)).hasMessageContaining("lower bound must be below");
  }

  @Test
  void alterAddsDisjointRangesAndDropsExactOnes() {
    PartitionSchema ps = withGap();
    PartitionSchema added = ps.withRange(days(10, 20), S);
    assertThat(added.ranges()).containsExactly(days(0, 10), days(10, 20), days(20, 30));
    assertThat(added.rangePartitions(List.of(days(10, 20)))).hasSize(2);
    assertThatThrownBy(() -> ps.withRange(days(5, 25), S))
        .hasMessageContaining("range partition [(day=5), (day=25)) overlaps range partition "
            + "[(day=0), (day=10))");
    assertThat(added.withoutRange(days(10, 20), S).ranges()).isEqualTo(ps.ranges());
    assertThatThrownBy(() -> ps.withoutRange(days(0, 5), S))
        .hasMessageContaining("no range partition [(day=0), (day=5)) to drop");
    assertThatThrownBy(() -> new PartitionSchema(HASH_ID, S).withRange(days(0, 1), S))
        .hasMessageContaining("no range partition columns");
    assertThatThrownBy(() -> new PartitionSchema(HASH_ID, List.of("day"),
        List.of(days(0, 10), days(9, 12)), S)).hasMessageContaining("overlaps");
  }

  private static boolean covers(PartitionPB p, byte[] key) {
    byte[] start = p.getPartitionKeyStart().toByteArray();
    byte[] end = p.getPartitionKeyEnd().toByteArray();
    return KeyEncoder.compare(key, start) >= 0
        && (end.length == 0 || KeyEncoder.compare(key, end) < 0);
  }
}
