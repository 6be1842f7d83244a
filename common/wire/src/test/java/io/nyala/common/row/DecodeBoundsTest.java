package io.nyala.common.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.RowBlockPB;
import io.nyala.common.proto.RowOperationsPB;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Counts and lengths read from a request or a file are checked against the bytes present before
 * anything is allocated for them (docs/data-safety.md, "Input"): a huge count with a few bytes
 * is an error naming the value, never an OutOfMemoryError, and costs about its own size.
 */
@Timeout(10)
class DecodeBoundsTest {
  /** Far more than a decode of a few bytes needs, far less than any huge count would take. */
  private static final long ALLOCATION_BOUND = 16 << 20;

  @Test
  void rowOperationsWithAHugeCountAreInvalidArgumentWithoutAllocating() {
    RowOperationsPB pb = RowOperations.encode(RowCodecTest.ALL_TYPES, List.of(
        new RowOperations.Op(RowOpType.INSERT, RowCodecTest.randomRow(new Random(3)))))
        .toBuilder().setCount(Integer.MAX_VALUE).build();
    assertRejected(() -> RowOperations.decode(RowCodecTest.ALL_TYPES, pb,
        StatusCode.INVALID_ARGUMENT), StatusCode.INVALID_ARGUMENT, "2147483647");
  }

  @Test
  void malformedRowOperationsFromAClientAreInvalidArgument() {
    RowOperationsPB pb = RowOperations.encode(RowCodecTest.ALL_TYPES, List.of(
        new RowOperations.Op(RowOpType.INSERT, RowCodecTest.randomRow(new Random(4)))));
    RowOperationsPB cut = pb.toBuilder().setRows(pb.getRows().substring(0, pb.getRows().size() - 3))
        .build();
    assertRejected(() -> RowOperations.decode(RowCodecTest.ALL_TYPES, cut,
        StatusCode.INVALID_ARGUMENT), StatusCode.INVALID_ARGUMENT, "truncated");
    RowOperationsPB badType = RowOperationsPB.newBuilder()
        .setRows(ByteString.copyFrom(new byte[] {99, 0, 0, 0, 0})).setCount(1).build();
    assertRejected(() -> RowOperations.decode(RowCodecTest.ALL_TYPES, badType,
        StatusCode.INVALID_ARGUMENT), StatusCode.INVALID_ARGUMENT, "unknown row operation type 99");
  }

  @Test
  void aLengthNearIntMaxAfterTheFirstByteIsCorruptionNotOutOfMemory() {
    byte[] buf = {0, 0, 0, 1, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xfe, 1, 2, 3};
    assertRejected(() -> {
      ByteReader r = new ByteReader(buf, "test buffer");
      r.readInt();
      r.readLengthPrefixed();
    }, StatusCode.CORRUPTION, "2147483646");
    assertRejected(() -> {
      ByteReader r = new ByteReader(buf, "test buffer");
      r.readInt();
      r.readString();
    }, StatusCode.CORRUPTION, "2147483646");
  }

  @Test
  void aCountBeyondTheBytesLeftIsRejectedBeforeAllocating() {
    byte[] buf = {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0};
    assertRejected(() -> {
      ByteReader r = new ByteReader(buf, 0, buf.length, "test buffer",
          StatusCode.INVALID_ARGUMENT);
      long[] unused = new long[r.readCount("entry", 8)];
    }, StatusCode.INVALID_ARGUMENT, "entry count 2147483647");
  }

  @Test
  void aRowBlockWithAHugeRowCountIsCorruptionWithoutAllocating() {
    RowBlockPB pb = RowBlockPB.newBuilder().setRows(ByteString.copyFrom(new byte[] {0, 0}))
        .setNumRows(Integer.MAX_VALUE).build();
    assertRejected(() -> RowBlock.decode(RowCodecTest.ALL_TYPES, pb), StatusCode.CORRUPTION,
        "2147483647");
  }

  /** {@code call} fails with {@code code} and a message naming {@code value}, cheaply. */
  static void assertRejected(ThrowingCallable call, StatusCode code, String value) {
    long before = allocatedBytes();
    assertThatThrownBy(call).isInstanceOfSatisfying(NyalaException.class, e -> {
      assertThat(e.code()).isEqualTo(code);
      assertThat(e.getMessage()).contains(value);
    });
    assertThat(allocatedBytes() - before).isLessThan(ALLOCATION_BOUND);
  }

  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }
}
