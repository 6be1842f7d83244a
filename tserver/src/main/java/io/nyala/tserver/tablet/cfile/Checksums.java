package io.nyala.tserver.tablet.cfile;

import io.nyala.common.NyalaException;
import java.util.zip.CRC32C;

/**
 * CRC32C framing shared by every structure of the format: {@code [u32 length][payload][u32
 * crc32c(payload)]}. A mismatch is a CORRUPTION error naming the block and the byte offset so an
 * operator can find the bad spot.
 */
public final class Checksums {
  /** Bytes added around a payload by {@link #frame}. */
  public static final int OVERHEAD = 8;

  private Checksums() {}

  public static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  /** The payload framed with its length and CRC32C. */
  public static byte[] frame(byte[] payload, int len) {
    byte[] out = new byte[len + OVERHEAD];
    putInt(out, 0, len);
    System.arraycopy(payload, 0, out, 4, len);
    putInt(out, 4 + len, crc(payload, 0, len));
    return out;
  }

  /**
   * Checks a frame read from {@code block} at {@code offset} and returns its payload length; the
   * payload starts at index 4 of {@code framed}.
   */
  public static int check(byte[] framed, String block, long offset, String what) {
    if (framed.length < OVERHEAD) {
      throw NyalaException.corruption("block %s: %s at offset %d is truncated (%d bytes)",
          block, what, offset, framed.length);
    }
    int len = getInt(framed, 0);
    if (len < 0 || len + OVERHEAD != framed.length) {
      throw NyalaException.corruption("block %s: %s at offset %d has a bad length %d "
          + "(frame of %d bytes)", block, what, offset, len, framed.length);
    }
    int stored = getInt(framed, 4 + len);
    if (crc(framed, 4, len) != stored) {
      throw NyalaException.corruption("block %s: CRC mismatch in %s at offset %d",
          block, what, offset);
    }
    return len;
  }

  static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  static int getInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8)
        | (b[at + 3] & 0xff);
  }
}
