package io.nyala.tserver.tablet.rowset;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.tablet.rowset.RowVersions.Version;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Version pruning in an in-memory layer: a sweep visits only keys it may change, and drops
 * exactly what no reader at or after the horizon can see.
 */
@Timeout(60)
class MemLayerTest {
  private static final Schema SCHEMA = new Schema(List.of(
      new ColumnSchema("id", Type.INT32, true, false, null, 1),
      new ColumnSchema("v", Type.STRING, false, true, null, 2)));

  private static byte[] key(int i) {
    return KeyEncoder.encode(SCHEMA.keyColumns(), new Object[] {i});
  }

  private static Version row(long index, String v) {
    return new Version(index, new Object[] {0, v});
  }

  @Test
  void insertsLeaveNothingToPruneAndASweepKeepsEveryKey() {
    MemLayer mem = new MemLayer(SCHEMA);
    for (int i = 0; i < 1000; i++) {
      mem.put(key(i), row(i + 1, "a"), 0, true);
    }
    assertThat(mem.prunableKeys()).isZero();
    mem.prune(10_000, true);
    assertThat(mem.keyCount()).isEqualTo(1000);
    assertThat(mem.get(key(7))).extracting(Version::index).containsExactly(8L);
  }

  @Test
  void olderVersionsStayWhileAReaderMaySeeThemAndGoOnceTheHorizonPasses() {
    MemLayer mem = new MemLayer(SCHEMA);
    mem.put(key(1), row(5, "old"), 0, true);
    mem.put(key(1), row(9, "new"), 0, true);
    mem.put(key(2), row(6, "only"), 0, true);
    assertThat(mem.prunableKeys()).isEqualTo(1);

    mem.prune(7, true); // a reader at 7 still sees "old"
    assertThat(mem.get(key(1))).extracting(Version::index).containsExactly(9L, 5L);
    assertThat(mem.prunableKeys()).isEqualTo(1);

    mem.prune(9, true);
    assertThat(mem.get(key(1))).extracting(Version::index).containsExactly(9L);
    assertThat(mem.prunableKeys()).isZero();
    assertThat(mem.get(key(2))).extracting(Version::index).containsExactly(6L);
  }

  @Test
  void aDeletionGoesOnlyWhenNoOlderLayerCanHoldTheKey() {
    MemLayer mem = new MemLayer(SCHEMA);
    mem.put(key(1), row(3, "x"), 0, false);
    mem.put(key(1), new Version(4, null), 0, false);
    // A deletion of a key an older layer holds (a DeltaMemStore's first version of it).
    mem.put(key(2), new Version(5, null), 0, false);
    assertThat(mem.prunableKeys()).isEqualTo(2);

    mem.prune(10, false); // the deletions hide older layers' versions: kept, alone
    assertThat(mem.get(key(1))).extracting(Version::index).containsExactly(4L);
    assertThat(mem.get(key(2))).extracting(Version::index).containsExactly(5L);
    assertThat(mem.prunableKeys()).isEqualTo(2);

    mem.prune(10, true); // no older layer any more: the deletions can go
    assertThat(mem.get(key(1))).isNull();
    assertThat(mem.get(key(2))).isNull();
    assertThat(mem.keyCount()).isZero();
    assertThat(mem.prunableKeys()).isZero();
  }

  @Test
  void aKeyDeletedAndInsertedAgainIsPrunedLikeAnyOther() {
    MemLayer mem = new MemLayer(SCHEMA);
    mem.put(key(1), row(1, "a"), 0, true);
    mem.put(key(1), new Version(2, null), 5, true); // horizon 5: the deletion drops the key
    assertThat(mem.get(key(1))).isNull();
    assertThat(mem.prunableKeys()).isZero();

    mem.put(key(1), row(6, "b"), 5, true);
    assertThat(mem.get(key(1))).extracting(Version::index).containsExactly(6L);
    assertThat(mem.prunableKeys()).isZero();
  }
}
