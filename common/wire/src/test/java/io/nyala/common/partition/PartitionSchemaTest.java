package io.nyala.common.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.proto.PartitionPB;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class PartitionSchemaTest {
  private static final Schema S = Schema.forTable(List.of(
      ColumnSchema.builder("a", Type.INT64).key(true).build(),
      ColumnSchema.builder("b", Type.STRING).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));

  @Test
  void partitionsTileTheKeySpaceAndEveryRowFallsInOne() {
    PartitionSchema ps = new PartitionSchema(List.of(
        new PartitionSchema.HashDimension(List.of("a"), 3, 0),
        new PartitionSchema.HashDimension(List.of("b"), 4, 9)), S);
    List<PartitionPB> parts = ps.createPartitions();
    assertThat(parts).hasSize(12);
    assertThat(parts.get(0).getPartitionKeyStart().isEmpty()).isTrue();
    assertThat(parts.get(1).getPartitionKeyStart().size()).isEqualTo(8);
    assertThat(parts.get(11).getPartitionKeyEnd().isEmpty()).isTrue();
    for (int i = 0; i + 1 < parts.size(); i++) {
      assertThat(parts.get(i).getPartitionKeyEnd())
          .isEqualTo(parts.get(i + 1).getPartitionKeyStart());
    }
    int[] hits = new int[12];
    for (long k = 0; k < 3000; k++) {
      byte[] pk = ps.partitionKey(new Object[] {k, "s" + (k % 17), null});
      int found = -1;
      for (int i = 0; i < parts.size(); i++) {
        byte[] start = parts.get(i).getPartitionKeyStart().toByteArray();
        byte[] end = parts.get(i).getPartitionKeyEnd().toByteArray();
        if (KeyEncoder.compare(pk, start) >= 0
            && (end.length == 0 || KeyEncoder.compare(pk, end) < 0)) {
          assertThat(found).isEqualTo(-1);
          found = i;
        }
      }
      assertThat(found).isNotEqualTo(-1);
      hits[found]++;
    }
    for (int h : hits) {
      assertThat(h).as("bucket balance").isGreaterThan(100);
    }
  }

  @Test
  void hashIsStableAcrossReleases() {
    // Data placement depends on this value: changing the hash would strand existing rows.
    assertThat(PartitionSchema.hash64(new byte[] {1, 2, 3}, 0)).isEqualTo(
        PartitionSchema.hash64(new byte[] {1, 2, 3}, 0));
    PartitionSchema ps = new PartitionSchema(List.of(
        new PartitionSchema.HashDimension(List.of("a"), 7, 0)), S);
    assertThat(ps.bucket(0, new Object[] {42L, "x", null}))
        .isEqualTo(ps.bucket(0, new Object[] {42L, "other", "v"}));
  }

  @Test
  void rejectsBadColumnsAndBucketCounts() {
    assertThatThrownBy(() -> new PartitionSchema(List.of(
        new PartitionSchema.HashDimension(List.of("v"), 3, 0)), S))
        .hasMessageContaining("'v'").hasMessageContaining("not a primary key");
    assertThatThrownBy(() -> new PartitionSchema(List.of(
        new PartitionSchema.HashDimension(List.of("zz"), 3, 0)), S))
        .hasMessageContaining("'zz'");
    assertThatThrownBy(() -> new PartitionSchema.HashDimension(List.of("a"), 1, 0))
        .hasMessageContaining("at least 2 buckets");
    PartitionSchema none = PartitionSchema.unpartitioned(S);
    assertThat(none.createPartitions()).hasSize(1);
    assertThat(none.partitionKey(new Object[] {1L, "a", null})).isEmpty();
  }
}
