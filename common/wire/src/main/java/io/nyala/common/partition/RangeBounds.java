package io.nyala.common.partition;

import com.google.protobuf.ByteString;
import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RangeBoundsPB;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One range partition: the range keys from {@code lower} (inclusive) to {@code upper}
 * (exclusive), each the key encoding of all range columns; an empty bound is unbounded on its
 * side. Compares as unsigned bytes, as partition keys do.
 *
 * @param lower the inclusive lower bound, empty for none
 * @param upper the exclusive upper bound, empty for none
 */
public record RangeBounds(byte[] lower, byte[] upper) {
  /** The range over every range key. */
  public static final RangeBounds UNBOUNDED = new RangeBounds(new byte[0], new byte[0]);

  /** Copies the bounds and checks that the range is not empty. */
  public RangeBounds {
    lower = lower.clone();
    upper = upper.clone();
    if (upper.length > 0 && Arrays.compareUnsigned(lower, upper) >= 0) {
      throw NyalaException.invalidArgument(
          "range partition's lower bound must be below its upper bound");
    }
  }

  @Override
  public byte[] lower() {
    return lower.clone();
  }

  @Override
  public byte[] upper() {
    return upper.clone();
  }

  /** @return whether a range key lies in this range */
  public boolean contains(byte[] rangeKey) {
    return Arrays.compareUnsigned(rangeKey, lower) >= 0
        && (upper.length == 0 || Arrays.compareUnsigned(rangeKey, upper) < 0);
  }

  /** @return whether the two ranges share a range key */
  public boolean overlaps(RangeBounds o) {
    boolean thisEndsBefore = upper.length > 0 && Arrays.compareUnsigned(upper, o.lower) <= 0;
    boolean otherEndsBefore = o.upper.length > 0 && Arrays.compareUnsigned(o.upper, lower) <= 0;
    return !thisEndsBefore && !otherEndsBefore;
  }

  /** Orders ranges by lower bound (unbounded first). */
  static int compareLower(RangeBounds a, RangeBounds b) {
    return Arrays.compareUnsigned(a.lower, b.lower);
  }

  /**
   * The wire form.
   *
   * @return the bounds as a {@code RangeBoundsPB}
   */
  @InternalApi
  public RangeBoundsPB toPb() {
    return RangeBoundsPB.newBuilder().setLower(ByteString.copyFrom(lower))
        .setUpper(ByteString.copyFrom(upper)).build();
  }

  /**
   * The bounds of a wire form.
   *
   * @param pb the wire form
   * @return the bounds; INVALID_ARGUMENT if lower is not below upper
   */
  @InternalApi
  public static RangeBounds fromPb(RangeBoundsPB pb) {
    return new RangeBounds(pb.getLower().toByteArray(), pb.getUpper().toByteArray());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RangeBounds r && Arrays.equals(lower, r.lower)
        && Arrays.equals(upper, r.upper);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(lower) + Arrays.hashCode(upper);
  }

  @Override
  public String toString() {
    return "RangeBounds[" + HexFormat.of().formatHex(lower) + ", "
        + HexFormat.of().formatHex(upper) + ")";
  }
}
