package io.nyala.common.row;

import java.math.BigInteger;

/** DECIMAL's unscaled values as 128-bit big-endian two's-complement integers. */
final class Decimals {
  private Decimals() {}

  /** {@code v} in 16 bytes, sign-extended; a checked DECIMAL (at most 38 digits) always fits. */
  static byte[] toBytes128(BigInteger v) {
    byte[] raw = v.toByteArray();
    if (raw.length > 16) {
      throw new IllegalArgumentException("unscaled decimal " + v + " needs more than 128 bits");
    }
    byte[] out = new byte[16];
    byte fill = (byte) (v.signum() < 0 ? 0xff : 0);
    int pad = 16 - raw.length;
    for (int i = 0; i < pad; i++) {
      out[i] = fill;
    }
    System.arraycopy(raw, 0, out, pad, raw.length);
    return out;
  }
}
