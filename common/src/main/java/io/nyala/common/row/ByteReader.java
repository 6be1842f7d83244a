package io.nyala.common.row;

import io.nyala.common.NyalaException;
import java.nio.charset.StandardCharsets;

/** Reads what {@link ByteWriter} wrote; a short buffer is a CORRUPTION error, never an AIOOBE. */
public final class ByteReader {
  private final byte[] buf;
  private int pos;
  private final int end;
  private final String what;

  public ByteReader(byte[] buf, String what) {
    this(buf, 0, buf.length, what);
  }

  public ByteReader(byte[] buf, int off, int len, String what) {
    this.buf = buf;
    this.pos = off;
    this.end = off + len;
    this.what = what;
  }

  private void need(int n) {
    if (n < 0 || pos + n > end) {
      throw NyalaException.corruption(
          "%s truncated: need %d bytes at offset %d, have %d", what, n, pos, end - pos);
    }
  }

  public boolean hasRemaining() {
    return pos < end;
  }

  public int position() {
    return pos;
  }

  public int readByte() {
    need(1);
    return buf[pos++] & 0xff;
  }

  public short readShort() {
    need(2);
    int v = ((buf[pos] & 0xff) << 8) | (buf[pos + 1] & 0xff);
    pos += 2;
    return (short) v;
  }

  public int readInt() {
    need(4);
    int v = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16)
        | ((buf[pos + 2] & 0xff) << 8) | (buf[pos + 3] & 0xff);
    pos += 4;
    return v;
  }

  public long readLong() {
    need(8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (buf[pos + i] & 0xff);
    }
    pos += 8;
    return v;
  }

  public byte[] readBytes(int n) {
    need(n);
    byte[] out = new byte[n];
    System.arraycopy(buf, pos, out, 0, n);
    pos += n;
    return out;
  }

  public byte[] readLengthPrefixed() {
    return readBytes(readInt());
  }

  public String readString() {
    int n = readInt();
    need(n);
    String s = new String(buf, pos, n, StandardCharsets.UTF_8);
    pos += n;
    return s;
  }
}
