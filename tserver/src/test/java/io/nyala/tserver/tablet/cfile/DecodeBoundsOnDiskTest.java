package io.nyala.tserver.tablet.cfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.row.ByteReader;
import io.nyala.common.row.ByteWriter;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.tablet.Superblock;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every on-disk structure (and a tablet copy's manifest, which is a superblock from a peer)
 * checks its counts and lengths against the bytes present before allocating: a CRC-valid but
 * damaged or hostile frame is CORRUPTION naming the value, never an OutOfMemoryError, a hang or
 * an unchecked exception (docs/data-safety.md, "Input").
 */
@Timeout(10)
class DecodeBoundsOnDiskTest {
  /** Far above a few bytes' decode (class loading included), far below any huge count's. */
  private static final long ALLOCATION_BOUND = 16 << 20;
  private static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("id", Type.INT32).key(true).build()));

  @Test
  void superblockWithAHugeRowsetCountIsCorruption() {
    Superblock sb = new Superblock(SCHEMA, 5, 1, 0, 0, List.of());
    byte[] framed = withLastIntOfPayload(sb.encode(), Integer.MAX_VALUE);
    assertCorrupt(() -> Superblock.decode(framed, "tablet copy manifest"), "2147483647");
  }

  @Test
  void superblockWithAHugeLayerOrBlockCountIsCorruption() {
    Superblock layers = new Superblock(SCHEMA, 5, 1, 0, 0,
        List.of(new Superblock.RowSetEntry(7, List.of())));
    assertCorrupt(() -> Superblock.decode(withLastIntOfPayload(layers.encode(), 1 << 30), "sb"),
        "1073741824");
    Superblock blocks = new Superblock(SCHEMA, 5, 1, 0, 0,
        List.of(new Superblock.RowSetEntry(7, List.of(List.of()))));
    assertCorrupt(() -> Superblock.decode(withLastIntOfPayload(blocks.encode(), -5), "sb"),
        "-5");
    // An intact one still reads.
    Superblock ok = new Superblock(SCHEMA, 5, 1, 0, 0,
        List.of(new Superblock.RowSetEntry(7, List.of(List.of(new BlockId(9))))));
    assertThat(Superblock.decode(ok.encode(), "sb").allBlocks()).containsExactly(new BlockId(9));
  }

  @Test
  void keyIndexWithAHugeKeyCountOrBadVersionCountIsCorruption() {
    assertCorrupt(() -> KeyIndex.decode(frame(w -> w.writeInt(Integer.MAX_VALUE)), "b1"),
        "2147483647");
    assertCorrupt(() -> KeyIndex.decode(frame(w -> {
      w.writeInt(1);
      w.writeLengthPrefixed(new byte[] {1});
      w.writeInt(-3);
    }), "b1"), "-3");
  }

  @Test
  void pageDirectoryWithAHugePageCountOrPagesOutsideTheBlockIsCorruption() {
    assertCorrupt(() -> PageDirectory.readFrom(reader(w -> {
      w.writeInt(Integer.MAX_VALUE);
      w.writeLong(100);
    })), "2147483647");
    assertCorrupt(() -> PageDirectory.readFrom(reader(w -> {
      w.writeInt(1);
      w.writeLong(100);
      w.writeInt(0);
      w.writeLong(1L << 40);
    })), "1099511627776");
  }

  @Test
  void pageWithAHugeValueCountIsCorruption() {
    byte[] page = bytes(w -> {
      w.writeInt(Integer.MAX_VALUE);
      w.writeInt(1);
    });
    assertCorrupt(() -> PageCodec.decode(Type.INT64, false, page, 0, page.length, "page"),
        "2147483647");
    assertCorrupt(() -> PageCodec.decode(Type.STRING, true, page, 0, page.length, "page"),
        "2147483647");
    byte[] negative = bytes(w -> w.writeInt(-1));
    assertCorrupt(() -> PageCodec.decode(Type.INT32, true, negative, 0, negative.length, "page"),
        "-1");
  }

  @Test
  void bloomFilterWithAHugeWordCountOrProbeCountIsCorruption() {
    assertCorrupt(() -> BloomFilter.decode(frame(w -> {
      w.writeInt(7);
      w.writeInt(Integer.MAX_VALUE);
    }), "b2"), "2147483647");
    // Probes bound each lookup's loop: billions of them would hang every insert.
    assertCorrupt(() -> BloomFilter.decode(frame(w -> {
      w.writeInt(Integer.MAX_VALUE);
      w.writeInt(1);
      w.writeLong(0);
    }), "b2"), "2147483647");
  }

  private interface Fill {
    void into(ByteWriter w);
  }

  private static byte[] bytes(Fill f) {
    ByteWriter w = new ByteWriter(64);
    f.into(w);
    return w.toByteArray();
  }

  private static byte[] frame(Fill f) {
    byte[] b = bytes(f);
    return Checksums.frame(b, b.length);
  }

  private static ByteReader reader(Fill f) {
    byte[] b = bytes(f);
    return new ByteReader(b, "page directory");
  }

  /** The frame with the payload's last int replaced, CRC recomputed: damage a CRC cannot see. */
  private static byte[] withLastIntOfPayload(byte[] framed, int value) {
    int len = Checksums.getInt(framed, 0);
    byte[] payload = Arrays.copyOfRange(framed, 4, 4 + len);
    Checksums.putInt(payload, len - 4, value);
    return Checksums.frame(payload, len);
  }

  private static void assertCorrupt(ThrowingCallable call, String value) {
    long before = allocatedBytes();
    assertThatThrownBy(call).isInstanceOfSatisfying(NyalaException.class, e -> {
      assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION);
      assertThat(e.getMessage()).contains(value);
    });
    assertThat(allocatedBytes() - before).isLessThan(ALLOCATION_BOUND);
  }

  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }
}
